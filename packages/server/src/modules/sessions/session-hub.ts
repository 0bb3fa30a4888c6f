import { randomUUID } from 'node:crypto';
import { sessionEndReasons } from '@postern/contracts';
import type { Backend } from '../../backend/index.js';
import { WatchedCache } from '../../backend/watched-cache.js';
import type { Clock } from '../../clock.js';
import { ApiError } from '../../errors.js';
import { emitAuditInBackground } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import { lockMessage, marksOf, type LockWatcher } from '../../access-control/locks/lock-watcher.js';
import { ApprovedTransfers } from './approved-transfers.js';
import { isInteractive } from './live-session-init.js';
import { LiveSession, type LiveSessionInit, type RecordingPolicy } from './live-session.js';
import { ScreenMirror } from './screen-mirror.js';
import {
  activeSessionsPrefix,
  SessionTrackerStore,
  trackerFromItem,
  type SessionTracker,
} from './session-tracker.store.js';

/** What a new session hears while the proxy drains before it stops. */
export const proxyShuttingDown = 'this proxy is shutting down; reconnect';

export interface SessionHubDeps {
  backend: Backend;
  audit: AuditStore;
  locks: LockWatcher;
  now: Clock;
  onError?: (error: unknown) => void;
  /** How often limits and locks are checked; locks also act at once through the watch. */
  checkIntervalMs?: number;
  /** Trackers live this long unless refreshed, so a dead proxy's sessions disappear. */
  trackerTtlMs?: number;
  /** This proxy's id in the registry and in trackers (default: a random UUID). */
  proxyId?: string;
  /** Where sessions are recorded; absent, nothing is recorded. */
  recordings?: RecordingPolicy;
  /** Subscribes to changes of roles and users: every access re-check runs at once then. */
  accessChanges?: (listener: () => void) => () => void;
  /** A user's traits, for moderation filters (`user.spec.traits`). */
  traitsOf?: (user: string) => Readonly<Record<string, readonly string[]>>;
}

/**
 * Something live that holds access (an SSH connection through the proxy, a joined party, a file
 * transfer): `recheck` judges it again against the current roles, users and credentials, and a
 * reason it returns is handed to `revoke`, which ends it and tells its client why.
 */
export interface AccessGuard {
  recheck(): string | undefined;
  revoke(reason: string): void;
}

/**
 * Every live session this proxy holds, and (through the backend) every session of the cluster.
 * It enforces what must hold while a session runs: locks end it (on the lock's watch event, and
 * on a periodic check), as do max_session_ttl and client_idle_timeout, and so does access taken
 * away: every session and every guard (any other live use of access, whatever its protocol) is
 * judged again when roles or users change, and on the same periodic check.
 */
export class SessionHub {
  /** Names this process in trackers, so a join can tell whether the session is here. */
  readonly proxyId: string;
  private readonly live = new Map<string, LiveSession>();
  /** Recordings of ended sessions still being sealed. */
  private readonly sealing = new Set<Promise<void>>();
  private readonly trackers: WatchedCache<SessionTracker>;
  private readonly store: SessionTrackerStore;
  private readonly mirror = new ScreenMirror();
  private timer: NodeJS.Timeout | undefined;
  private lastRefresh = 0;
  /**
   * A lock in force, or a lock view gone stale: live sessions end at once. Guards are judged at
   * the next check, a second later: a guard may hold the connection a session ending now still
   * writes its reason on (a kubectl exec's), and would cut that reason off.
   */
  private readonly onLock = () => this.enforce();
  private readonly guards = new Set<AccessGuard>();
  /** The file transfers moderated sessions approved, for the transfer route to take. */
  readonly approvedTransfers: ApprovedTransfers;
  /** Sessions of other shapes (desktops) listed in Active Sessions: their current trackers. */
  private readonly tracked = new Map<string, () => SessionTracker>();
  private stopAccessChanges: (() => void) | undefined;
  private drainingSince: number | undefined;
  private internalAddr: string | undefined;
  private internalCert: string | undefined;

  constructor(private readonly deps: SessionHubDeps) {
    this.proxyId = deps.proxyId ?? randomUUID();
    this.store = new SessionTrackerStore(deps.backend);
    this.approvedTransfers = new ApprovedTransfers({ backend: deps.backend, now: deps.now });
    this.trackers = new WatchedCache(deps.backend, {
      prefix: activeSessionsPrefix,
      parse: trackerFromItem,
      onError: deps.onError,
    });
  }

  async start(): Promise<void> {
    // Recordings a crash left open are sealed before new ones start. Storage that cannot start
    // stops the server unless recordings fail open; then each session reports its own failure.
    await this.deps.recordings?.store.init().catch((error: unknown) => {
      if (this.deps.recordings?.onFailure !== 'fail_open') throw error;
      this.deps.onError?.(error);
    });
    await this.trackers.start();
    this.deps.locks.on('lock', this.onLock);
    this.deps.locks.on('stale', this.onLock);
    this.stopAccessChanges = this.deps.accessChanges?.(() => this.recheckAccess());
    this.timer = setInterval(() => this.tick(), this.deps.checkIntervalMs ?? 1000);
    this.timer.unref();
  }

  /**
   * Where the other proxies of the cluster reach this one (its web listener as bound): written
   * into the trackers of its sessions, so a join through another proxy can come here.
   */
  advertise(url: string, certPem?: string): void {
    this.internalAddr = url;
    this.internalCert = certPem;
    for (const session of this.live.values()) this.publish(session);
  }

  /** What `advertise` was told, if anything. */
  get address(): string | undefined {
    return this.internalAddr;
  }

  /** The tracker fields that tell the other proxies where this one is reached, once advertised. */
  get reach(): Pick<SessionTracker, 'proxyAddr' | 'proxyCert'> | undefined {
    if (!this.internalAddr) return undefined;
    return {
      proxyAddr: this.internalAddr,
      ...(this.internalCert ? { proxyCert: this.internalCert } : {}),
    };
  }

  /**
   * The proxy stops soon: from now on new sessions of every kind are refused (`assertAccepting`)
   * and readiness reports draining, while the live ones go on until `shutdown`.
   */
  drain(): void {
    this.drainingSince ??= this.deps.now();
  }

  get draining(): boolean {
    return this.drainingSince !== undefined;
  }

  /** Throws the error to show when a new session may not start here (the proxy is draining). */
  assertAccepting(): void {
    if (this.draining) throw new ApiError('connection_problem', proxyShuttingDown);
  }

  /** Live sessions held by this proxy by kind, desktops (tracked) included: for the metrics. */
  activeByKind(): Map<string, number> {
    const counts = new Map<string, number>();
    const add = (kind: string) => counts.set(kind, (counts.get(kind) ?? 0) + 1);
    for (const session of this.live.values()) if (!session.isEnded) add(session.init.kind);
    for (const tracker of this.tracked.values()) add(tracker().kind);
    return counts;
  }

  /** Registers a session whose channel is open; its owner joins next. */
  create(init: LiveSessionInit): LiveSession {
    const session = new LiveSession(init, {
      audit: this.deps.audit,
      mirror: this.mirror,
      now: this.deps.now,
      recordings: this.deps.recordings,
      traitsOf: this.deps.traitsOf,
      approvedTransfers: this.approvedTransfers,
      onError: this.deps.onError,
      onChange: (s) => this.publish(s),
      onEnd: (s) => {
        this.live.delete(s.id);
        this.keepSealing(s.recordingDone);
        void this.store.remove(s.id).catch(this.deps.onError);
      },
    });
    this.live.set(session.id, session);
    emitAuditInBackground(this.deps.audit, 'T2000I', {
      ...session.auditFields(),
      user: init.owner.user,
      ...(init.terminal ? { size: `${init.terminal.w}:${init.terminal.h}` } : {}),
      interactive: isInteractive(init),
      ...(init.command ? { command: init.command } : {}),
    });
    return session;
  }

  /**
   * Why a recording could not be written now, or undefined: `record_session: strict` refuses to
   * start a session that would be unrecorded from its first byte.
   */
  async recordingProblem(): Promise<string | undefined> {
    const store = this.deps.recordings?.store;
    if (!store) return 'session recording is not configured';
    return store.writableProblem?.();
  }

  /** Judges `guard` again whenever sessions are; call the returned function once it is over. */
  guard(guard: AccessGuard): () => void {
    this.guards.add(guard);
    return () => this.guards.delete(guard);
  }

  /**
   * Lists a live session that is not a terminal (a desktop's) in Active Sessions: its tracker is
   * written now and refreshed like the terminal sessions' until the returned function is called,
   * which removes it. Its owner enforces locks and access itself, through `guard`.
   */
  track(tracker: () => SessionTracker): () => void {
    const id = tracker().id;
    this.tracked.set(id, tracker);
    this.put(tracker());
    return () => {
      if (!this.tracked.delete(id)) return;
      void this.store.remove(id).catch(this.deps.onError);
    };
  }

  /**
   * Ends what no longer has access: sessions first (so their parties hear the reason before a
   * connection they ride on closes), then every other guard.
   */
  recheckAccess(): void {
    for (const session of [...this.live.values()]) {
      const reason = this.judged(() => session.init.recheck?.());
      if (reason) session.terminate(reason, 'revoked');
    }
    for (const guard of [...this.guards]) {
      const reason = this.judged(() => guard.recheck());
      if (reason) guard.revoke(reason);
    }
  }

  /** A re-check that throws is reported and keeps what it judges: a bug must not end sessions. */
  private judged(recheck: () => string | undefined): string | undefined {
    try {
      return recheck();
    } catch (error) {
      this.deps.onError?.(error);
      return undefined;
    }
  }

  /** A session held by this proxy. */
  get(sid: string): LiveSession | undefined {
    return this.live.get(sid);
  }

  /** Every live session of the cluster, from the watched trackers. */
  list(): SessionTracker[] {
    return this.trackers.values();
  }

  /** Removes the tracker of a session another proxy held and lost (dead-proxy-recovery.ts). */
  async forget(sid: string): Promise<void> {
    if (this.live.has(sid) || this.tracked.has(sid)) return;
    await this.store.remove(sid);
  }

  tracker(sid: string): SessionTracker | undefined {
    return this.trackers.get(sid);
  }

  /**
   * Ends every live session because the proxy stops: parties are told why (a WebSocket closes
   * with 1001), and it resolves once every recording is sealed.
   */
  async shutdown(): Promise<void> {
    const sessions = [...this.live.values()];
    for (const session of sessions) session.terminate(sessionEndReasons.shutdown, 'shutdown');
    await Promise.all(sessions.map((s) => s.recordingDone));
    // Sessions that ended just before: their recordings may still be sealing into the storage
    // that closes next.
    await Promise.allSettled([...this.sealing]);
  }

  /** Holds an ended session's recording seal until it settles, for `shutdown` to wait on. */
  private keepSealing(done: Promise<void>): void {
    this.sealing.add(done);
    const forget = () => this.sealing.delete(done);
    done.then(forget, forget);
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.deps.locks.off('lock', this.onLock);
    this.deps.locks.off('stale', this.onLock);
    this.stopAccessChanges?.();
    await this.shutdown();
    await this.trackers.close();
    await this.mirror.stop();
  }

  private tick(): void {
    const now = this.deps.now();
    for (const session of [...this.live.values()]) session.checkLimits(now);
    this.enforce();
    this.recheckAccess();
    if (now - this.lastRefresh >= this.ttl() / 4) {
      this.lastRefresh = now;
      for (const session of this.live.values()) this.publish(session);
      for (const tracker of this.tracked.values()) this.put(tracker());
    }
  }

  /**
   * Ends sessions (and removes parties) that a lock now covers. While the lock view is stale
   * that includes users whose roles say `lock: strict` (the watcher's fence): a proxy cut off
   * from the cluster's storage fences them off itself.
   */
  private enforce(): void {
    for (const session of [...this.live.values()]) {
      const { owner, login, node } = session.init;
      const lock =
        this.deps.locks.lockFor({ ...owner, login, node: node.id }) ??
        this.deps.locks.lockFor({ node: node.hostname });
      if (lock) {
        session.terminate(`locked: ${lockMessage(lock)}`);
        continue;
      }
      for (const party of session.parties()) {
        const { user, roles } = party;
        const partyLock = this.deps.locks.lockFor({ user, roles, ...marksOf(party) });
        if (partyLock) session.leave(party.id, `locked: ${lockMessage(partyLock)}`);
      }
    }
  }

  private publish(session: LiveSession): void {
    if (session.isEnded) return;
    this.put({ ...session.toTracker(), ...this.reach });
  }

  private put(tracker: SessionTracker): void {
    void this.store.put(tracker, this.ttl(), this.deps.now()).catch(this.deps.onError);
  }

  private ttl(): number {
    return this.deps.trackerTtlMs ?? 60_000;
  }
}
