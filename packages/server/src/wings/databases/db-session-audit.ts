import type { AuditCode } from '@postern/contracts';
import { randomUUID } from 'node:crypto';
import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import type { LockWatcher } from '../../access-control/locks/lock-watcher.js';
import type { Clock } from '../../clock.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { AuditBatcher } from '../../modules/audit/audit-batcher.js';
import { remoteAddr } from '../../modules/audit/emit.js';
import type {
  SessionTracker,
  SessionTrackerStore,
} from '../../modules/sessions/session-tracker.store.js';
import { routeWithdrawal, type DatabaseRoute } from './db-access.js';

export interface DatabaseSessionsDeps {
  audit: AuditStore;
  access: Pick<AccessResolver, 'resolve'>;
  locks: Pick<LockWatcher, 'isLocked'>;
  trackers: SessionTrackerStore;
  proxyId: string;
  /** Where the other proxies reach this one (SessionHub.reach): a cancel landing there comes here. */
  reach?: () => Pick<SessionTracker, 'proxyAddr' | 'proxyCert'> | undefined;
  clusterName: string;
  now: Clock;
  /** How often a live session asks again whether its user still may (locks, roles). */
  recheckMs?: number;
}

/** How long a tracker lives without a refresh: a proxy that dies takes its sessions along. */
const trackerTtlMs = 90_000;
const trackerRefreshMs = 30_000;

/**
 * Database sessions' audit and life (docs/databases.md): the start and end events, one event per
 * statement (written in batches in the background: the query path never waits for the log), the
 * session on Active Sessions, and the checks that end it when a lock or a role change withdraws
 * its route.
 */
export class DatabaseSessions {
  readonly #live = new Set<DatabaseSessionAudit>();
  /** Every event of every database session goes through one batcher, so order is kept. */
  readonly #events: AuditBatcher;

  constructor(private readonly deps: DatabaseSessionsDeps) {
    this.#events = new AuditBatcher(deps.audit);
  }

  /**
   * `tracked: false` for a connection a live session already lists in Active Sessions (the
   * browser's SQL console): its statements are audited here, its listing is the console's.
   */
  open(
    route: DatabaseRoute,
    protocol: string,
    addr?: string,
    { tracked = true }: { tracked?: boolean } = {},
  ): DatabaseSessionAudit {
    const session = new DatabaseSessionAudit(
      this.deps,
      this.#events,
      route,
      protocol,
      addr,
      () => this.#live.delete(session),
      tracked,
    );
    this.#live.add(session);
    return session;
  }

  refuse(route: DatabaseRoute, protocol: string, why: string, addr?: string): void {
    this.#events.add('TDB00W', {
      ...routeFields(route, protocol),
      ...remoteAddr(addr),
      success: false,
      error: why,
    });
    void this.#events.flush();
  }

  /** Ends every live session (the proxy is stopping) and writes their events. */
  endAll(reason: string): Promise<void> {
    for (const session of [...this.#live]) session.withdraw(reason);
    return this.#events.flush();
  }

  get liveCount(): number {
    return this.#live.size;
  }
}

export class DatabaseSessionAudit {
  readonly sid = randomUUID();
  readonly #fields: Record<string, unknown>;
  #onWithdrawn: ((why: string) => void) | undefined;
  #ended = false;
  #malformed: string | undefined;
  readonly #recheck: NodeJS.Timeout;
  readonly #refresh: NodeJS.Timeout;

  constructor(
    private readonly deps: DatabaseSessionsDeps,
    private readonly events: AuditBatcher,
    private readonly route: DatabaseRoute,
    protocol: string,
    addr: string | undefined,
    private readonly onEnd: () => void,
    tracked: boolean,
  ) {
    this.#fields = { ...routeFields(route, protocol), sid: this.sid };
    events.add('TDB00I', { ...this.#fields, ...remoteAddr(addr), success: true });
    this.#recheck = setInterval(() => {
      const why = routeWithdrawal(deps, route);
      if (why) this.withdraw(why);
    }, deps.recheckMs ?? 1_000);
    this.#recheck.unref();
    const created = new Date(deps.now()).toISOString();
    const track = () => void this.#track(created).catch(() => undefined);
    if (tracked) track();
    this.#refresh = setInterval(() => tracked && track(), trackerRefreshMs);
    this.#refresh.unref();
  }

  /** One statement the client sent (spec §8: the list cuts the text, details hold it whole). */
  statement(code: AuditCode, fields: Record<string, unknown>): void {
    if (this.#ended) return;
    this.events.add(code, { ...this.#fields, ...fields });
  }

  /** The client broke the protocol: the end event says how. */
  malformed(why: string): void {
    this.#malformed = why;
  }

  onWithdrawn(callback: (why: string) => void): void {
    this.#onWithdrawn = callback;
  }

  /** Ends the session from the proxy's side (a lock, a role change, a stop). */
  withdraw(why: string): void {
    if (this.#ended) return;
    this.#onWithdrawn?.(why);
    this.end(why);
  }

  end(reason: string): void {
    if (this.#ended) return;
    this.#ended = true;
    clearInterval(this.#recheck);
    clearInterval(this.#refresh);
    this.onEnd();
    const why = this.#malformed ? `protocol violation: ${this.#malformed}` : reason;
    this.events.add('TDB01I', { ...this.#fields, reason: why });
    void this.events.flush();
    void this.deps.trackers.remove(this.sid).catch(() => undefined);
  }

  async #track(created: string): Promise<void> {
    if (this.#ended) return;
    const { route } = this;
    const now = this.deps.now();
    await this.deps.trackers.put(
      {
        kind: 'db',
        id: this.sid,
        login: route.dbUser,
        created,
        lastActive: new Date(now).toISOString(),
        serverId: route.db.metadata.name,
        serverHostname: route.db.metadata.name,
        serverAddr: route.db.spec.uri,
        clusterName: this.deps.clusterName,
        owner: route.user,
        ownerRoles: this.deps.access.resolve(route.user, []).roles,
        terminal: { w: 0, h: 0 },
        parties: [{ id: this.sid, user: route.user, mode: 'peer', lastActive: created }],
        moderated: false,
        command: route.dbName,
        proxyId: this.deps.proxyId,
        ...this.deps.reach?.(),
        expires: new Date(now + trackerTtlMs).toISOString(),
        traceId: '',
      },
      trackerTtlMs,
      now,
    );
    // A session that ended while the tracker was written must not stay listed.
    if (this.#ended) await this.deps.trackers.remove(this.sid);
  }
}

function routeFields(route: DatabaseRoute, protocol: string) {
  return {
    user: route.user,
    db_service: route.db.metadata.name,
    db_protocol: protocol,
    db_uri: route.db.spec.uri,
    db_name: route.dbName,
    db_user: route.dbUser,
  };
}
