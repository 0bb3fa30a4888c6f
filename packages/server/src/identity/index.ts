import { sessionMfaRoutes } from './mfa/session-mfa.routes.js';
import type { Part } from '../part.js';
import type { Platform } from '../platform.js';
import { accountRoutes } from './account/account.routes.js';
import { authRoutes } from './auth/auth.routes.js';
import { buildCliLogin, cliLoginRoutes, type CliLoginServices } from './cli-login/index.js';
import { userTokensRoutes } from './user-tokens/user-tokens.routes.js';
import { userPreferencesRoutes } from './user-preferences/user-preferences.routes.js';
import { buildIdentity, type IdentityBasics } from './build-identity.js';
import { buildBots, registerBotsRoutes, type BotServices } from './bots/index.js';

export { buildIdentity, type IdentityBasics } from './build-identity.js';

/**
 * Who people are: local users and their credentials, web sessions, invite and reset links, and
 * sign-in on the web and on the command line.
 */
export const identityPart = {
  name: 'identity',
  build: (platform: Platform) => {
    const basics = buildIdentity(platform);
    const cliLogin = buildCliLogin(platform, basics);
    return { ...basics, ...cliLogin, ...buildBots(platform, basics, cliLogin) };
  },
  start: async (identity) => {
    // Hash the dummy password now, so the first unknown-user sign-in costs no more than others.
    void identity.passwords.dummyHash();
    // WebAuthn devices stored before the credential index existed get their records, once.
    await identity.credentialIndex.backfill();
  },
  routes: async (server, identity, ctx) => {
    const { loginRateLimit, accessControl } = ctx;
    const { accessRequests } = accessControl;
    await server.register(authRoutes, { ...identity, loginRateLimit, accessRequests });
    const { usersAdmin } = accessControl;
    await server.register(userTokensRoutes, { ...identity, usersAdmin, loginRateLimit });
    await server.register(accountRoutes, { ...identity, loginRateLimit });
    await server.register(userPreferencesRoutes, { preferences: identity.preferences });
    await server.register(sessionMfaRoutes, {
      sessionMfa: identity.sessionMfa,
      grants: identity.sessionMfaGrants,
      clusterName: ctx.config.clusterName,
    });
    await cliLoginRoutes(server, identity, loginRateLimit);
    await registerBotsRoutes(server, identity, {
      loginRateLimit,
      clusterName: ctx.config.clusterName,
    });
  },
} satisfies Part<Platform, IdentityBasics & CliLoginServices & BotServices>;

export type IdentityServices = IdentityBasics & CliLoginServices & BotServices;
