import type { Backend } from '../backend/index.js';
import type { Clock } from '../clock.js';
import type { IdentityBasics } from '../identity/build-identity.js';
import type { AuditStore } from '../modules/audit/index.js';
import { ConnectorsService } from './connectors/connectors.service.js';
import { ConnectorsStore } from './connectors/connectors.store.js';
import { LocksService } from './locks/locks.service.js';
import { LoginRulesService } from './login-rules/login-rules.service.js';
import { LoginRulesStore } from './login-rules/login-rules.store.js';
import { LocksStore } from './locks/locks.store.js';
import { RolesService } from './roles/roles.service.js';
import { RolesStore } from './roles/roles.store.js';
import { UsersAdminService } from '../identity/users/users-admin.service.js';

export interface AccessControlDeps {
  backend: Backend;
  audit: AuditStore;
  now: Clock;
  identity: Pick<IdentityBasics, 'users'>;
}

/**
 * The services of access control: roles, locks, user administration, the auth connectors and the
 * login rules that rewrite their traits. Like buildIdentity, the app serves them and the admin CLI uses the same ones on the same storage.
 * What lives in memory (the watched roles, users and locks) is the app's: see app.ts.
 */
export function buildAccessControl({ backend, audit, now, identity }: AccessControlDeps) {
  const roles = new RolesService(new RolesStore(backend), identity.users.store, audit);
  const locks = new LocksService(new LocksStore(backend), audit, now);
  const usersAdmin = new UsersAdminService(identity.users, audit);
  const connectors = new ConnectorsService(new ConnectorsStore(backend), audit);
  const loginRules = new LoginRulesService(new LoginRulesStore(backend), audit, now);
  return { roles, locks, usersAdmin, connectors, loginRules };
}

export type AccessControlServices = ReturnType<typeof buildAccessControl>;
