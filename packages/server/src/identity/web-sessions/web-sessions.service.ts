import { randomBytes } from 'node:crypto';
import type { SessionResponse } from '@postern/contracts';
import { systemClock, type Clock } from '../../clock.js';
import { sameSecret } from '../../secrets.js';
import { openSuccessor, sealSuccessor } from './successor-seal.js';
import type { WebSessionRecord, WebSessionStore } from './web-sessions.store.js';

export type { SessionResponse };

/** Defaults of auth.bearer_ttl and auth.session_ttl; the console renews at 180 s left (spec §9). */
export const bearerTtlMs = 10 * 60 * 1000;
export const defaultSessionTtlMs = 12 * 3600 * 1000;
/** Activity is written at most this often, so a busy console does not write on every request. */
export const activityWriteIntervalMs = 15_000;
/** After a renewal the old session answers this long, for requests already in flight. */
export const renewGraceMs = 30_000;
/** Renewals within one grace: a few at most (tabs renewing in turn); a longer chain is refused. */
const maxSuccessorHops = 5;

export interface WebSessionOptions {
  sessionTtlMs?: number;
  bearerTtlMs?: number;
  /** 0: sessions never end for inactivity. */
  idleTimeoutMs?: number;
  now?: Clock;
}

/** What a renewal may change: the access requests the new session assumes (reference §1.2). */
export interface SessionChanges {
  accessRequests: string[];
}

export interface WebSession extends WebSessionRecord {
  id: string;
}

/** 256 random bits, hex: session ids and bearer tokens. */
const newSecret = () => randomBytes(32).toString('hex');
const iso = (ms: number) => new Date(ms).toISOString();

export class WebSessionService {
  private readonly sessionTtlMs: number;
  private readonly bearerTtlMs: number;
  private readonly idleTimeoutMs: number;
  private readonly now: Clock;

  constructor(
    private readonly store: WebSessionStore,
    options: WebSessionOptions = {},
  ) {
    this.sessionTtlMs = options.sessionTtlMs ?? defaultSessionTtlMs;
    this.bearerTtlMs = options.bearerTtlMs ?? bearerTtlMs;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 0;
    this.now = options.now ?? systemClock;
  }

  /** Starts a session for a user who has just proven who they are (or for a test). */
  async create(
    user: string,
    roles: string[],
    ttlMs = this.sessionTtlMs,
    extra: Pick<WebSession, 'rootSessionMfa' | 'mfaDevice'> = {},
  ): Promise<WebSession> {
    const now = this.now();
    const expires = now + ttlMs;
    const session: WebSession = {
      id: newSecret(),
      user,
      roles: [...roles].sort(),
      bearerToken: newSecret(),
      bearerExpires: iso(Math.min(now + this.bearerTtlMs, expires)),
      expires: iso(expires),
      created: iso(now),
      lineage: newSecret(),
      lastActive: iso(now),
      ...extra,
    };
    await this.store.put(session.id, session);
    return session;
  }

  /**
   * The live session behind a cookie value, or null when unknown, expired, or idle longer than
   * auth.idle_timeout; an idle session is deleted, so it cannot come back.
   */
  async fromCookie(sessionId: string | undefined): Promise<WebSession | null> {
    if (!sessionId || !/^[0-9a-f]{64}$/.test(sessionId)) return null;
    const record = await this.store.get(sessionId);
    if (!record || Date.parse(record.expires) <= this.now()) return null;
    if (this.isIdle(record)) {
      await this.store.delete(sessionId);
      if (record.lineage) await this.store.endLineage(record.lineage);
      return null;
    }
    return { ...record, id: sessionId };
  }

  /**
   * True when the bearer is the session's current, unexpired token, or, for the old session's
   * grace after a renewal, the token of the session it was renewed from.
   */
  bearerMatches(session: WebSession, bearer: string | undefined): boolean {
    if (!bearer) return false;
    const now = this.now();
    const current =
      Date.parse(session.bearerExpires) > now && sameSecret(bearer, session.bearerToken);
    const prior =
      !!session.priorBearer &&
      Date.parse(session.priorBearerExpires ?? '') > now &&
      sameSecret(bearer, session.priorBearer);
    return current || prior;
  }

  /**
   * Records activity at `at` (default now). Written only when it moves lastActive on by the
   * write interval, and only over the revision read, so it never resurrects a renewed session.
   */
  async noteActivity(session: WebSession, at = this.now()): Promise<void> {
    if (this.idleTimeoutMs === 0) return;
    const last = Date.parse(session.lastActive ?? session.created);
    const moment = Math.min(at, this.now());
    if (moment - last < activityWriteIntervalMs) return;
    const current = await this.store.getWithRevision(session.id);
    if (!current) return;
    const record = { ...current.record, lastActive: iso(moment) };
    await this.store.replace(session.id, record, current.revision);
  }

  /**
   * The bearer for the index page: the current one, or a fresh one when it has run low. Writes
   * name the revision read, so a session ended meanwhile (logout, renewal) is not brought back.
   */
  async responseFor(session: WebSession): Promise<SessionResponse> {
    const threshold = Math.min(60_000, this.bearerTtlMs / 2);
    if (Date.parse(session.bearerExpires) - this.now() >= threshold) return this.response(session);
    const current = await this.store.getWithRevision(session.id);
    if (!current) return this.response(session);
    const next = {
      ...current.record,
      bearerToken: newSecret(),
      bearerExpires: this.bearerExpiry(current.record),
    };
    const written = await this.store.replace(session.id, next, current.revision);
    return this.response(written ? { ...next, id: session.id } : session);
  }

  /**
   * Renewal issues a new session (id, cookie and bearer) with the same end: renewing never
   * extends auth.session_ttl. The old one answers for a short grace, for requests already in
   * flight, then is gone. Asked again within that grace (its answer was lost to a closed tab, a
   * dropped connection or a reload, or another tab asked at the same moment), it answers with
   * the same successor: a session never forks, and a lost answer never costs the user theirs.
   */
  async renew(session: WebSession, changes?: SessionChanges): Promise<WebSession | null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.store.getWithRevision(session.id);
      if (!current) return null;
      if (current.record.replacedAt) {
        const successor = await this.successorOf(session.id, current.record);
        // A change (assuming a request) asked of a session renewed meanwhile applies to the
        // live one: renewing that one carries the change.
        if (successor && changes) return this.renew(successor, changes);
        return successor && this.withFullBearerLife(successor);
      }
      const now = this.now();
      const graceEnd = Math.min(Date.parse(current.record.expires), now + renewGraceMs);
      const renewed: WebSession = {
        ...current.record,
        ...changes,
        id: newSecret(),
        bearerToken: newSecret(),
        bearerExpires: this.bearerExpiry(current.record),
        priorBearer: current.record.bearerToken,
        priorBearerExpires: iso(Math.min(Date.parse(current.record.bearerExpires), graceEnd)),
      };
      // The successor exists before the old record points at it, so whoever follows the
      // pointer finds it.
      await this.store.put(renewed.id, renewed);
      const retired: WebSessionRecord = {
        ...current.record,
        replacedAt: iso(now),
        expires: iso(graceEnd),
        successor: sealSuccessor(session.id, renewed.id),
      };
      if (await this.store.replace(session.id, retired, current.revision)) return renewed;
      // Another renewal (or an activity write) changed the record first: look again.
      await this.store.delete(renewed.id);
    }
    return null;
  }

  /**
   * The session to hand a browser whose cookie names `session`: itself, or, when it was renewed
   * and the browser never heard (a reload during the renewal), the session it was renewed into.
   */
  async latest(session: WebSession): Promise<WebSession | null> {
    return session.replacedAt ? this.successorOf(session.id, session) : session;
  }

  response(session: WebSession): SessionResponse {
    return {
      type: 'bearer',
      token: session.bearerToken,
      expires_in: Math.max(0, Math.round((Date.parse(session.bearerExpires) - this.now()) / 1000)),
      sessionExpires: session.expires,
      sessionInactiveTimeout: this.idleTimeoutMs,
    };
  }

  /** Ends a session, and the sessions it was renewed into: signing out with an old cookie counts. */
  async end(sessionId: string): Promise<void> {
    let id: string | null = sessionId;
    for (let hop = 0; id && hop < maxSuccessorHops; hop++) {
      const record = await this.store.get(id);
      await this.store.delete(id);
      if (record?.lineage) await this.store.endLineage(record.lineage);
      id = record?.successor ? openSuccessor(id, record.successor) : null;
    }
  }

  /**
   * Whether the sign-in `session` belongs to is still on (its lineage: renewals keep it), for
   * what outlives a session id, like an app session. Marks it first for a session stored before
   * lineages were marked.
   */
  async ensureLineageMarked(session: WebSession): Promise<string | undefined> {
    if (!session.lineage) return undefined;
    await this.store.markLineage(session.lineage, session.expires);
    return session.lineage;
  }

  lineageAlive(lineage: string): Promise<boolean> {
    return this.store.lineageAlive(lineage);
  }

  /** When the lineage's sign-in ends (its sessions' expiry), or null when it is over. */
  lineageExpires(lineage: string): Promise<Date | null> {
    return this.store.lineageExpires(lineage);
  }

  /** Ends every session of the user, but those of `keptLineage` (the one making a change). */
  endAllOf(user: string, keptLineage?: string): Promise<number> {
    return this.store.deleteAllOf(user, keptLineage);
  }

  private bearerExpiry(session: WebSessionRecord): string {
    return iso(Math.min(this.now() + this.bearerTtlMs, Date.parse(session.expires)));
  }

  /** A successor handed out again gets its bearer's full life back, as a renewal would give. */
  private async withFullBearerLife(session: WebSession): Promise<WebSession> {
    const current = await this.store.getWithRevision(session.id);
    if (!current) return session;
    const next = { ...current.record, bearerExpires: this.bearerExpiry(current.record) };
    const written = await this.store.replace(session.id, next, current.revision);
    return written ? { ...next, id: session.id } : session;
  }

  /** Follows renewals from a retired session to the live one (a tab may have renewed twice). */
  private async successorOf(
    sessionId: string,
    retired: WebSessionRecord,
  ): Promise<WebSession | null> {
    let id = sessionId;
    let record = retired;
    for (let hop = 0; hop < maxSuccessorHops; hop++) {
      const next = record.successor ? openSuccessor(id, record.successor) : null;
      const found = next ? await this.store.get(next) : null;
      if (!next || !found || Date.parse(found.expires) <= this.now() || this.isIdle(found)) {
        return null;
      }
      if (!found.replacedAt) return { ...found, id: next };
      id = next;
      record = found;
    }
    return null;
  }

  private isIdle(record: WebSessionRecord): boolean {
    if (this.idleTimeoutMs === 0) return false;
    return this.now() - Date.parse(record.lastActive ?? record.created) > this.idleTimeoutMs;
  }
}
