import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { WebSessionRecord, WebSessionStore } from './web-sessions.store.js';

/** Bearer tokens live ten minutes; the console renews them well before (spec §9: at 180 s). */
export const bearerTtlMs = 10 * 60 * 1000;
export const defaultSessionTtlMs = 12 * 3600 * 1000;

/** The JSON the login call returns and the index's bearer meta tag carries (base64). */
export interface SessionResponse {
  type: 'bearer';
  token: string;
  expires_in: number;
  sessionExpires: string;
  sessionInactiveTimeout: number;
}

export interface WebSession extends WebSessionRecord {
  id: string;
}

const newSecret = () => randomBytes(32).toString('hex');

export class WebSessionService {
  constructor(
    private readonly store: WebSessionStore,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts a session. Until sign-in exists (issue 3) only tests and the harness call this. */
  async create(user: string, roles: string[], ttlMs = defaultSessionTtlMs): Promise<WebSession> {
    const now = this.now();
    const session: WebSession = {
      id: newSecret(),
      user,
      roles: [...roles].sort(),
      bearerToken: newSecret(),
      bearerExpires: new Date(now + bearerTtlMs).toISOString(),
      expires: new Date(now + ttlMs).toISOString(),
      created: new Date(now).toISOString(),
    };
    await this.store.put(session.id, session);
    return session;
  }

  /** The live session behind a cookie value, or null when unknown or expired. */
  async fromCookie(sessionId: string | undefined): Promise<WebSession | null> {
    if (!sessionId || !/^[0-9a-f]{64}$/.test(sessionId)) return null;
    const record = await this.store.get(sessionId);
    if (!record || Date.parse(record.expires) <= this.now()) return null;
    return { ...record, id: sessionId };
  }

  /** True when the bearer matches the session's current, unexpired token. */
  bearerMatches(session: WebSession, bearer: string | undefined): boolean {
    if (!bearer || Date.parse(session.bearerExpires) <= this.now()) return false;
    const given = Buffer.from(bearer);
    const expected = Buffer.from(session.bearerToken);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /** The bearer for the index page: the current one, or a fresh one when it has run out. */
  async responseFor(session: WebSession): Promise<SessionResponse> {
    let current = session;
    if (Date.parse(session.bearerExpires) - this.now() < 60_000) {
      current = {
        ...session,
        bearerToken: newSecret(),
        bearerExpires: new Date(
          Math.min(this.now() + bearerTtlMs, Date.parse(session.expires)),
        ).toISOString(),
      };
      await this.store.put(session.id, current);
    }
    return {
      type: 'bearer',
      token: current.bearerToken,
      expires_in: Math.floor((Date.parse(current.bearerExpires) - this.now()) / 1000),
      sessionExpires: current.expires,
      sessionInactiveTimeout: 0,
    };
  }

  async end(sessionId: string): Promise<void> {
    await this.store.delete(sessionId);
  }
}
