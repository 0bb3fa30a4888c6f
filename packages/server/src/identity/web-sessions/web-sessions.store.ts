import { createHash } from 'node:crypto';
import { BackendError, type Backend } from '../../backend/index.js';

/**
 * A signed-in browser. The cookie holds the session id; the store keys the record by the id's
 * SHA-256, so a copy of the database alone does not yield a usable cookie.
 */
export interface WebSessionRecord {
  user: string;
  roles: string[];
  bearerToken: string;
  bearerExpires: string;
  expires: string;
  created: string;
  /**
   * One random id for a sign-in and every session renewed from it (renewals copy the record):
   * a change of credentials keeps the lineage that made it signed in.
   */
  lineage?: string;
  /** Last request that counted as activity (absent in sessions stored before it was kept: `created`). */
  lastActive?: string;
  /** Set once the session was renewed: it lives on briefly for requests in flight. */
  replacedAt?: string;
  /**
   * The id of the session it was renewed into, sealed with a key only the old cookie yields
   * (successor-seal.ts), so that a repeated renewal finds the same successor while a copy of the
   * database still yields no usable cookie.
   */
  successor?: string;
  /**
   * The bearer of the session this one was renewed from, good with this session's cookie until
   * `priorBearerExpires` (the old session's grace): a tab whose renewal answer was lost after the
   * browser had stored the new cookie still holds the old bearer only.
   */
  priorBearer?: string;
  priorBearerExpires?: string;
  /** Access requests this session assumed (renew with `requestId`); switching back clears them. */
  accessRequests?: string[];
  /**
   * On a trusted leaf: the root whose user this is, when their roles there ask for a per-session
   * MFA check. Terminals ask for it (the root runs it on the socket it relays); the console's
   * other sessions are refused rather than opened unchecked (session-mfa.ts).
   */
  rootSessionMfa?: string;
  /**
   * The id of the MFA device the user signed in with (absent: SSO, no second factor, or a
   * session stored before it was kept). Renewals copy it: an `mfa_device` lock on it locks the
   * session and every session renewed from it.
   */
  mfaDevice?: string;
}

const prefix = '/web_sessions/';
/**
 * One marker per signed-in lineage (hashed), living as long as its sessions: what tells an app
 * session (docs/apps.md) that the sign-in it came from is still on, whatever renewals did to the
 * session ids. Signing out, idling out and ending all of a user's sessions remove it.
 */
const lineagePrefix = '/web_session_lineages/';
const lineageKey = (lineage: string) =>
  lineagePrefix + createHash('sha256').update(lineage).digest('hex');

export function hashSessionId(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

export class WebSessionStore {
  constructor(private readonly backend: Backend) {}

  async get(sessionId: string): Promise<WebSessionRecord | null> {
    return (await this.getWithRevision(sessionId))?.record ?? null;
  }

  async getWithRevision(
    sessionId: string,
  ): Promise<{ record: WebSessionRecord; revision: string } | null> {
    const item = await this.backend.get(prefix + hashSessionId(sessionId));
    return item
      ? { record: JSON.parse(item.value) as WebSessionRecord, revision: item.revision }
      : null;
  }

  async put(sessionId: string, record: WebSessionRecord): Promise<void> {
    await this.backend.upsert(this.item(sessionId, record));
    if (record.lineage) await this.markLineage(record.lineage, record.expires);
  }

  /** Notes that the lineage is signed in until `expires` (its sessions' end). */
  async markLineage(lineage: string, expires: string): Promise<void> {
    await this.backend.upsert({
      key: lineageKey(lineage),
      value: '{}',
      expires: new Date(expires),
    });
  }

  async lineageAlive(lineage: string): Promise<boolean> {
    return (await this.backend.get(lineageKey(lineage))) !== null;
  }

  /** When the lineage's sessions end, or null when it is not signed in. */
  async lineageExpires(lineage: string): Promise<Date | null> {
    return (await this.backend.get(lineageKey(lineage)))?.expires ?? null;
  }

  async endLineage(lineage: string): Promise<void> {
    await this.backend.delete(lineageKey(lineage)).catch(() => undefined);
  }

  /** Writes only over the revision that was read: false when the session changed or went away. */
  async replace(sessionId: string, record: WebSessionRecord, revision: string): Promise<boolean> {
    try {
      await this.backend.update(this.item(sessionId, record), revision);
      return true;
    } catch (error) {
      if (error instanceof BackendError) return false;
      throw error;
    }
  }

  async delete(sessionId: string): Promise<void> {
    await this.backend.delete(prefix + hashSessionId(sessionId)).catch(() => undefined);
  }

  /**
   * Ends every session of a user (after a password reset), except those of `keptLineage` (the
   * one that changed the credentials). Keys are hashes, so this scans.
   */
  async deleteAllOf(user: string, keptLineage?: string): Promise<number> {
    const { items } = await this.backend.list({ prefix });
    let ended = 0;
    for (const item of items) {
      const record = JSON.parse(item.value) as WebSessionRecord;
      if (record.user !== user) continue;
      if (keptLineage !== undefined && record.lineage === keptLineage) continue;
      await this.backend.delete(item.key).catch(() => undefined);
      if (record.lineage) await this.endLineage(record.lineage);
      ended++;
    }
    return ended;
  }

  private item(sessionId: string, record: WebSessionRecord) {
    // Callers may pass a whole WebSession: its id is the cookie and must never be stored.
    const { id: _cookie, ...stored } = record as WebSessionRecord & { id?: string };
    return {
      key: prefix + hashSessionId(sessionId),
      value: JSON.stringify(stored),
      expires: new Date(record.expires),
    };
  }
}
