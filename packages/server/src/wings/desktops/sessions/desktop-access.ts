import { sessionMfaRefusal } from '../../../identity/mfa/session-mfa.js';
import type { AccessResolver } from '../../../access-control/access/access-resolver.js';
import type { SubjectRef } from '../../../access-control/access/credential-revocation.js';
import { lockMessage, type LockView } from '../../../access-control/locks/lock-watcher.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import { webSessionSubject, type Identity } from '../../../http/request-identity.js';
import type { DesktopRecord } from '../desktop-kind.js';

/** What a user may do on a desktop they opened: judged at the start, then again while it runs. */
export interface DesktopGrant {
  desktop: DesktopRecord;
  /** The login the session runs as (a role's `windows_desktop_logins`). */
  login: string;
  user: string;
  roles: string[];
  /** `desktop_clipboard`: copy and paste both ways. */
  clipboard: boolean;
  /** `record_session.desktop`. */
  record: boolean;
  /** The sign-in the session belongs to: signing out (or its end) ends the session. */
  lineage?: string;
  /** Why the session may no longer run (a lock, a role change, a deleted user), or undefined. */
  recheck(): string | undefined;
}

export type DesktopRefusal = { refused: string; code: 403 | 404 };

export interface DesktopAccessDeps {
  desktops: { visible(name: string, roleSet: RoleSet | null): DesktopRecord | undefined };
  subjects: Pick<AccessResolver, 'current'>;
  locks: LockView;
}

/**
 * Who may open which desktop as which login: the roles' `windows_desktop_labels` reach it (else
 * it does not exist for them), one of the roles' `windows_desktop_logins` names the login, and no
 * lock covers the user, their roles, the login or the desktop. The same judgement runs again while the
 * session lives, against the current roles, users and locks.
 */
export class DesktopAccess {
  constructor(private readonly deps: DesktopAccessDeps) {}

  open(identity: Identity, name: string, login: string): DesktopGrant | DesktopRefusal {
    const subject = webSessionSubject(identity);
    const { sessionMfaDevice } = identity;
    const first = this.judge(subject, name, login, sessionMfaDevice);
    if ('refused' in first) return first;
    const unchecked = sessionMfaRefusal(identity, 'the desktop page');
    if (unchecked) return { refused: unchecked, code: 403 };
    return {
      ...first,
      ...(identity.session.lineage ? { lineage: identity.session.lineage } : {}),
      recheck: () => {
        const again = this.judge(subject, name, login, sessionMfaDevice);
        return 'refused' in again ? again.refused : undefined;
      },
    };
  }

  private judge(
    subject: SubjectRef,
    name: string,
    login: string,
    sessionMfaDevice: string | undefined,
  ): Omit<DesktopGrant, 'recheck' | 'lineage'> | DesktopRefusal {
    const current = this.deps.subjects.current(subject);
    if (!current.ok) return { refused: current.reason, code: 403 };
    const { roles, roleSet } = current;
    const desktop = this.deps.desktops.visible(name, roleSet);
    if (!desktop) return { refused: `no desktop named ${name}`, code: 404 };
    if (
      !roleSet
        .desktopLoginsFor({ labels: desktop.metadata.labels, name: desktop.metadata.name })
        .includes(login)
    ) {
      return {
        refused: `your roles do not allow the login ${login} on desktop ${name}`,
        code: 403,
      };
    }
    const lock = this.deps.locks.lockFor({
      user: subject.user,
      roles,
      login,
      desktop: desktop.metadata.name,
      mfaDevice: subject.credential.mfaDevice,
      sessionMfaDevice,
      accessRequests: subject.accessRequests,
    });
    if (lock) return { refused: `locked: ${lockMessage(lock)}`, code: 403 };
    const options = roleSet.options();
    return {
      desktop,
      login,
      user: subject.user,
      roles,
      clipboard: options.desktopClipboard,
      record: options.recordSession.desktop,
    };
  }
}
