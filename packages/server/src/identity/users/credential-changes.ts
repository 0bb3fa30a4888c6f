import type { Clock } from '../../clock.js';
import type { WebSessionService } from '../web-sessions/web-sessions.service.js';
import type { UsersStore } from './users.store.js';

export interface CredentialChangesDeps {
  users: Pick<UsersStore, 'mutate'>;
  sessions: Pick<WebSessionService, 'endAllOf'>;
  now: Clock;
}

/**
 * What follows a change of a user's credentials (a new password, a removed second factor, an
 * administrator's reset): everything issued before it stops counting. The user record is stamped
 * with the moment, which every proxy sees through its watched users: web sessions and user
 * certificates issued earlier are refused, and live terminals opened with them end (the session
 * hub's re-checks). The other web sessions are deleted too. When the user changes it themselves,
 * `keptLineage` names their own web session, which stays signed in with its terminals.
 */
export class CredentialChanges {
  constructor(private readonly deps: CredentialChangesDeps) {}

  async revokeEarlier(user: string, keptLineage?: string): Promise<void> {
    const at = new Date(this.deps.now()).toISOString();
    await this.deps.users.mutate(user, (record) => ({
      ...record,
      credentialsChanged: { at, ...(keptLineage ? { keptLineage } : {}) },
    }));
    await this.deps.sessions.endAllOf(user, keptLineage);
  }
}
