import { lockedRequestHint } from '@postern/contracts';
import { EventEmitter } from 'node:events';
import type { Backend } from '../../backend/index.js';
import { WatchedCache } from '../../backend/watched-cache.js';
import type { Clock } from '../../clock.js';
import { lockFromItem, locksPrefix, type LockResource } from './locks.store.js';

/**
 * What a credential (a web session, a certificate) carries besides its user and roles that a
 * lock may name: each connection keeps these from the credential it came in with, so a lock on
 * one of them ends it.
 */
export interface CredentialMarks {
  /** The id of the MFA device the credential was signed in with (`mfa_device`). */
  mfaDevice?: string | undefined;
  /** The device that answered the per-session MFA check the session was opened with. */
  sessionMfaDevice?: string | undefined;
  /** The access requests the credential assumed (`access_request`). */
  accessRequests?: readonly string[] | undefined;
  /** The bot instance a bot's certificate was issued to (`bot_instance`). */
  botInstance?: string | undefined;
}

/** What may be locked about one attempt: who, with which roles, to which login and node. */
export interface LockSubject extends CredentialMarks {
  user?: string;
  roles?: readonly string[];
  login?: string;
  node?: string;
  /** A desktop's name (the target kind `windows_desktop`). */
  desktop?: string;
}

/** Just the marks of something that carries them (a requester, a party), for a lock subject. */
export const marksOf = ({
  mfaDevice,
  sessionMfaDevice,
  accessRequests,
  botInstance,
}: CredentialMarks): CredentialMarks => ({
  mfaDevice,
  sessionMfaDevice,
  accessRequests,
  botInstance,
});

/** Something that tells whether a lock is in force on a subject (login and the guard ask). */
export interface LockView {
  /** The lock in force on any part of the subject (`lock: strict`'s fence included). */
  lockFor(subject: LockSubject): LockResource | undefined;
}

export type LockingMode = 'best_effort' | 'strict';

export interface LockWatcherOptions {
  onError?: (error: unknown) => void;
  /**
   * The role option `lock` of a user with these roles, as the roles are now. Absent:
   * best_effort for everyone.
   */
  lockingModeOf?: (user: string, roles: readonly string[]) => LockingMode;
}

/** The name of the lock `lockFor` reports for `lock: strict` while the view is stale. */
export const strictFenceName = 'lock-view-stale';

/**
 * How long the fence stands after the view went stale, even when it is listed again sooner: the
 * live sessions that judge locks on a timer (app tunnels every 2 s, database sessions every
 * second) must all see it, as the terminals do through the 'stale' event, or a short outage would
 * end strict users' shells and spare their other sessions.
 */
export const strictFenceHoldMs = 5_000;

const strictFenceMessage =
  'the lock list cannot be confirmed current right now and your role requires strict locking (lock: strict); try again shortly';

/**
 * The locks in force, in memory, fed by a watch on `/locks/`: a lock written by any proxy (or by
 * `postern locks add`) is enforced by every proxy on the same storage within the watch's latency,
 * and checks cost no storage round trip. Expiry is judged by the clock on every check.
 *
 * `lock: strict` lives here too, as the reference's lock watcher has it: while the view may miss
 * locks (its storage cannot be reached), a user whose roles say `lock: strict` counts as locked.
 * So every check of every protocol (sign-in, certificates, API calls, and the re-checks of live
 * shells, app, database, Kubernetes and desktop sessions) fences them off with one rule.
 *
 * Emits 'lock' when a lock comes into force (created, or seen at start), so that the session hub can end
 * the live sessions it covers, and 'stale' when the view may start missing locks (`lock: strict`
 * sessions end then).
 */
export class LockWatcher
  extends EventEmitter<{ lock: [LockResource]; stale: [] }>
  implements LockView
{
  private readonly cache: WatchedCache<LockResource>;
  private started = false;
  /** When the view last went stale. */
  private staleSince: number | undefined;

  constructor(
    backend: Backend,
    private readonly now: Clock,
    private readonly options: LockWatcherOptions = {},
  ) {
    super();
    this.cache = new WatchedCache(backend, {
      prefix: locksPrefix,
      parse: lockFromItem,
      onError: options.onError,
    });
    this.cache.on('put', (_name: string, lock: LockResource) => {
      if (this.inForce(lock)) this.emit('lock', lock);
    });
    this.cache.on('stale', () => {
      this.staleSince = this.now();
      this.emit('stale');
    });
  }

  async start(): Promise<void> {
    await this.cache.start();
    this.started = true;
  }

  close(): Promise<void> {
    return this.cache.close();
  }

  /** Every lock in force now. */
  locks(): LockResource[] {
    this.assertStarted();
    return this.cache.values().filter((lock) => this.inForce(lock));
  }

  /**
   * The first lock in force that covers any part of the subject; else, while the view is stale
   * (and for `strictFenceHoldMs` after it went stale), the strict fence for a user whose roles
   * say `lock: strict`; else undefined.
   */
  lockFor(subject: LockSubject): LockResource | undefined {
    return this.locks().find((lock) => covers(lock, subject)) ?? this.strictFence(subject);
  }

  /** The watch on `/locks/` failed and the locks have not been listed again yet. */
  isStale(): boolean {
    return this.cache.stale;
  }

  /** The first list of locks has loaded. */
  isLoaded(): boolean {
    return this.cache.loaded;
  }

  isLocked(subject: LockSubject): boolean {
    return this.lockFor(subject) !== undefined;
  }

  /** A lock that exists only in this proxy's view, while the view is in doubt. */
  private strictFence({ user, roles = [] }: LockSubject): LockResource | undefined {
    if (user === undefined || !this.inDoubt()) return undefined;
    if (this.lockingModeOf(user, roles) !== 'strict') return undefined;
    return {
      kind: 'lock',
      version: 'v2',
      metadata: { name: strictFenceName },
      spec: {
        target: { user },
        message: strictFenceMessage,
        createdBy: 'postern',
        createdAt: new Date(this.now()).toISOString(),
      },
    };
  }

  /** The view is stale, or was within the fence's hold. */
  private inDoubt(): boolean {
    if (this.cache.stale) return true;
    return this.staleSince !== undefined && this.now() - this.staleSince < strictFenceHoldMs;
  }

  /** A failing look-up counts as best_effort: a bug must not lock everyone out. */
  private lockingModeOf(user: string, roles: readonly string[]): LockingMode {
    try {
      return this.options.lockingModeOf?.(user, roles) ?? 'best_effort';
    } catch (error) {
      this.options.onError?.(error);
      return 'best_effort';
    }
  }

  private inForce(lock: LockResource): boolean {
    return !lock.spec.expires || Date.parse(lock.spec.expires) > this.now();
  }

  // Fail closed: a watcher that never loaded would report "no locks" for everyone.
  private assertStarted(): void {
    if (!this.started) throw new Error('lock watcher not started');
  }
}

function covers(lock: LockResource, subject: LockSubject): boolean {
  const { target } = lock.spec;
  const is = (value: string | undefined, wanted: string | undefined) =>
    value !== undefined && value === wanted;
  return (
    is(target.user, subject.user) ||
    (target.role !== undefined && (subject.roles ?? []).includes(target.role)) ||
    is(target.login, subject.login) ||
    is(target.node, subject.node) ||
    is(target.windows_desktop, subject.desktop) ||
    is(target.mfa_device, subject.mfaDevice) ||
    is(target.mfa_device, subject.sessionMfaDevice) ||
    (target.access_request !== undefined &&
      (subject.accessRequests ?? []).includes(target.access_request)) ||
    is(target.bot_instance, subject.botInstance)
  );
}

/** The lock's own message, or a plain reason when it has none. */
export const lockText = (lock: LockResource) =>
  lock.spec.message.trim() || 'an administrator locked access';

/**
 * The words a locked caller sees: the lock's message; for a lock on an access request, also
 * which request, and that a new sign-in (which assumes nothing) goes on.
 */
export function lockMessage(lock: LockResource): string {
  const request = lock.spec.target.access_request;
  if (!request) return lockText(lock);
  return `${lockText(lock)} (access request ${request} is locked: ${lockedRequestHint})`;
}
