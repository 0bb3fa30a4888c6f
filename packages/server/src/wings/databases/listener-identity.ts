import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import type { CredentialMarks, LockWatcher } from '../../access-control/locks/lock-watcher.js';
import { sessionMfaRefusal } from '../../identity/mfa/session-mfa.js';

/**
 * Who a native database listener's client is, judged at each connection from the user its
 * `postern db login` certificate names: a user that still exists and is not locked, with their
 * current roles (and those of the access requests it assumed, while approved); or why not (a
 * message the client is told). A user whose roles ask for a
 * per-session MFA check is refused: a database client cannot be asked for one.
 */
export function listenerIdentity(
  access: Pick<AccessResolver, 'users' | 'resolve'>,
  locks: Pick<LockWatcher, 'lockFor'>,
) {
  return (user: string, marks: CredentialMarks = {}) => {
    if (!access.users.get(user)) return 'this user no longer exists';
    const resolved = access.resolve(user, [], marks.accessRequests ?? []);
    const subject = { user, roles: resolved.roles, ...marks };
    if (locks.lockFor(subject)) return `${user} is locked`;
    return sessionMfaRefusal(resolved, 'a database client') ?? resolved;
  };
}
