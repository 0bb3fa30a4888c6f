import type { Clock } from '../../clock.js';
import type { AuthSettings } from '../../config/config.js';
import { accessDenied } from '../../errors.js';
import type { AuditStore } from '../../modules/audit/index.js';
import { emitAudit, remoteAddr } from '../../modules/audit/emit.js';
import type { LoginFailuresStore } from './login-failures.store.js';
import type { UserResource, UsersStore } from './users.store.js';

/**
 * Locks an account after too many failed sign-ins (auth.lockout). Failures are counted in
 * storage, not in memory, so every proxy on the same storage sees the same count.
 */
export class LockoutService {
  constructor(
    private readonly failures: LoginFailuresStore,
    private readonly users: UsersStore,
    private readonly settings: AuthSettings['lockout'],
    private readonly audit: AuditStore,
    private readonly now: Clock,
  ) {}

  /** When the account's lockout ends, if it is locked now. */
  lockedUntil(user: UserResource): string | undefined {
    const until = user.status.lockedUntil;
    return until && Date.parse(until) > this.now() ? until : undefined;
  }

  isLocked(user: UserResource): boolean {
    return this.lockedUntil(user) !== undefined;
  }

  /** Counts a failure; returns the lock's end when this failure locked the account. */
  async recordFailure(name: string, addr: string | undefined): Promise<string | undefined> {
    const { maxFailures, windowMs, durationMs } = this.settings;
    if (maxFailures === 0) return undefined;
    const now = this.now();
    const failures = await this.failures.add(name, now, windowMs);
    if (failures < maxFailures) return undefined;
    const lockedUntil = new Date(now + durationMs).toISOString();
    const lockReason = `${failures} failed logins within ${Math.round(windowMs / 60_000)} minutes`;
    await this.users.mutate(name, (user) => ({ ...user, status: { lockedUntil, lockReason } }));
    await this.failures.clear(name);
    await emitAudit(this.audit, 'TPOS012W', {
      user: name,
      locked_until: lockedUntil,
      reason: lockReason,
      ...remoteAddr(addr),
    });
    return lockedUntil;
  }

  /** A successful sign-in starts the count again. */
  async clearFailures(name: string): Promise<void> {
    await this.failures.clear(name);
  }

  /** Ends a lock early (`postern users unlock`); returns false when there was none. */
  async unlock(name: string, by: string): Promise<boolean> {
    let wasLocked = false;
    await this.users.mutate(name, (user) => {
      wasLocked = Boolean(
        user.status.lockedUntil && Date.parse(user.status.lockedUntil) > this.now(),
      );
      return { ...user, status: {} };
    });
    await this.clearFailures(name);
    if (wasLocked) await emitAudit(this.audit, 'TPOS013I', { user: by, name });
    return wasLocked;
  }
}

export function lockedError(until: string) {
  return accessDenied(`account is locked until ${until} after too many failed logins`);
}
