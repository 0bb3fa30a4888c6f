import type { Backend } from '../backend/index.js';
import { systemClock, type Clock } from '../clock.js';
import type { Config } from '../config/config.js';
import { AccountService } from './account/account.service.js';
import { DevicesService } from './account/devices.service.js';
import type { AuditStore } from '../modules/audit/index.js';
import { LoginService } from './auth/login.service.js';
import type { LockView } from '../access-control/locks/lock-watcher.js';
import { ChallengeStore } from './mfa/challenges.store.js';
import { WebauthnCredentialIndex } from './mfa/credential-index.js';
import { SessionMfa } from './mfa/session-mfa.js';
import { SessionMfaGrants } from './mfa/session-mfa-grants.js';
import { SecondFactorService } from './mfa/second-factor.service.js';
import { WebauthnService } from './mfa/webauthn.service.js';
import { CompleteTokenService } from './user-tokens/complete-token.service.js';
import { UserTokensService } from './user-tokens/user-tokens.service.js';
import { UserTokensStore } from './user-tokens/user-tokens.store.js';
import { LockoutService } from './users/lockout.service.js';
import { LoginFailuresStore } from './users/login-failures.store.js';
import { RolesStore } from '../access-control/roles/roles.store.js';
import { PasswordHasher } from './users/passwords.js';
import { CredentialChanges } from './users/credential-changes.js';
import { UsersService } from './users/users.service.js';
import { UsersStore } from './users/users.store.js';
import { WebSessionService } from './web-sessions/web-sessions.service.js';
import { WebSessionStore } from './web-sessions/web-sessions.store.js';
import { UserPreferencesService } from './user-preferences/user-preferences.service.js';
import { UserPreferencesStore } from './user-preferences/user-preferences.store.js';

export interface IdentityDeps {
  config: Config;
  backend: Backend;
  audit: AuditStore;
  /** The locks in force: sign-in refuses a locked user. */
  locks: LockView;
  now?: Clock;
}

/**
 * Every service of local identity, wired once: the app serves them and the admin CLI uses the
 * same ones against the same storage, so both follow the same rules and emit the same events.
 */
export function buildIdentity({ config, backend, audit, locks, now = systemClock }: IdentityDeps) {
  const settings = config.auth;
  const usersStore = new UsersStore(backend);
  const passwords = new PasswordHasher();
  const failures = new LoginFailuresStore(backend);
  const lockout = new LockoutService(failures, usersStore, settings.lockout, audit, now);
  const sessions = new WebSessionService(new WebSessionStore(backend), {
    sessionTtlMs: settings.sessionTtlMs,
    bearerTtlMs: settings.bearerTtlMs,
    idleTimeoutMs: settings.idleTimeoutMs,
    now,
  });
  const tokenStore = new UserTokensStore(backend, now);
  const credentialChanges = new CredentialChanges({ users: usersStore, sessions, now });
  const preferencesStore = new UserPreferencesStore(backend);
  const preferences = new UserPreferencesService(preferencesStore, config.clusterName);
  const users = new UsersService({
    store: usersStore,
    roles: new RolesStore(backend),
    audit,
    now,
    removal: {
      endSessions: (name) => sessions.endAllOf(name),
      deleteLinks: (name) => tokenStore.deleteLinksOf(name),
      clearFailures: (name) => lockout.clearFailures(name),
      forgetPreferences: (name) => preferencesStore.forget(name),
    },
  });
  const webauthn = new WebauthnService(config, new ChallengeStore(backend, now));
  const secondFactor = new SecondFactorService(usersStore, webauthn, settings, now, locks);
  const sessionMfa = new SessionMfa({ users: usersStore, secondFactor, audit });
  const sessionMfaGrants = new SessionMfaGrants({ backend, now });
  const credentialIndex = new WebauthnCredentialIndex(backend, usersStore, audit, now);
  const tokens = new UserTokensService({
    store: tokenStore,
    users: usersStore,
    webauthn,
    audit,
    config,
    now,
    credentialChanges,
  });
  const login = new LoginService({
    users: usersStore,
    passwords,
    lockout,
    secondFactor,
    webauthn,
    sessions,
    audit,
    settings,
    locks,
  });
  const completion = new CompleteTokenService({
    store: tokenStore,
    users: usersStore,
    passwords,
    webauthn,
    credentialIndex,
    login,
    sessions,
    audit,
    settings,
    now,
    credentialChanges,
  });
  const account = new AccountService({
    users: usersStore,
    passwords,
    login,
    lockout,
    secondFactor,
    tokens,
    audit,
    settings,
    credentialChanges,
  });
  const devices = new DevicesService({
    users: usersStore,
    tokens: tokenStore,
    webauthn,
    credentialIndex,
    audit,
    settings,
    now,
    credentialChanges,
  });
  return {
    users,
    usersStore,
    passwords,
    lockout,
    sessions,
    tokens,
    login,
    secondFactor,
    sessionMfa,
    sessionMfaGrants,
    completion,
    account,
    devices,
    credentialIndex,
    preferences,
  };
}

/** Local identity without the CLI's certificates: what admin commands use. */
export type IdentityBasics = ReturnType<typeof buildIdentity>;
