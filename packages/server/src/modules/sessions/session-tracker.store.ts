import type { ParticipantMode, SessionKind } from '@postern/contracts';
import type { Backend, Item } from '../../backend/index.js';

export const activeSessionsPrefix = '/active_sessions/';

export interface TrackedParty {
  id: string;
  user: string;
  mode: ParticipantMode;
  /** RFC 3339. */
  lastActive: string;
  /** RFC 3339: its connection dropped then, and the session waits for it to resume. */
  connectionLostAt?: string;
}

/**
 * A live session as every proxy sees it. The proxy that holds the session writes it with a short
 * TTL and refreshes it, so a proxy that dies leaves no ghost sessions behind for long.
 */
export interface SessionTracker {
  kind: SessionKind;
  id: string;
  login: string;
  /** RFC 3339. */
  created: string;
  lastActive: string;
  serverId: string;
  serverHostname: string;
  serverAddr: string;
  clusterName: string;
  owner: string;
  /** The owner's roles: join_sessions policies are written against them. */
  ownerRoles: string[];
  terminal: { w: number; h: number };
  parties: TrackedParty[];
  moderated: boolean;
  command: string;
  /** Which proxy process holds the session (joins must reach it). */
  proxyId: string;
  /**
   * Where the other proxies reach that proxy: its web listener as bound (`https://host:port`,
   * `http://` with --insecure-no-tls). Nothing secret; absent before it listens.
   */
  proxyAddr?: string;
  /**
   * That listener's TLS certificate (PEM, public): another proxy trusts exactly it, as its name is
   * the public address and not the internal one. Absent for plain HTTP.
   */
  proxyCert?: string;
  /** RFC 3339: when the session must end at the latest (max_session_ttl, web session expiry). */
  expires: string;
  traceId: string;
}

export const trackerFromItem = (item: Item) => JSON.parse(item.value) as SessionTracker;

export class SessionTrackerStore {
  constructor(private readonly backend: Backend) {}

  async put(tracker: SessionTracker, ttlMs: number, now: number): Promise<void> {
    await this.backend.upsert({
      key: activeSessionsPrefix + tracker.id,
      value: JSON.stringify(tracker),
      expires: new Date(now + ttlMs),
    });
  }

  /**
   * Sets a stored tracker's last activity (and its parties'), if it is still stored: written only
   * over the revision it read, so a session that ended meanwhile is not brought back.
   */
  async touch(id: string, lastActive: string): Promise<void> {
    const item = await this.backend.get(activeSessionsPrefix + id);
    if (!item) return;
    const tracker = trackerFromItem(item);
    tracker.lastActive = lastActive;
    tracker.parties = tracker.parties.map((party) => ({ ...party, lastActive }));
    await this.backend
      .update(
        { key: item.key, value: JSON.stringify(tracker), expires: item.expires },
        item.revision,
      )
      .catch(() => undefined);
  }

  async remove(id: string): Promise<void> {
    await this.backend.delete(activeSessionsPrefix + id).catch(() => undefined);
  }
}
