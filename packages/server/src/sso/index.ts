import type { Core, Part } from '../part.js';
import type { Platform } from '../platform.js';
import { buildSso, type SsoServices } from './build-sso.js';
import { ssoRoutes } from './sso.routes.js';

export type { SsoServices } from './build-sso.js';

/** Single sign-on (OIDC, SAML, GitHub) for the console and for `postern login --auth`. */
export const ssoPart = {
  name: 'sso',
  build: ({ identity, accessControl, ...platform }: Platform & Omit<Core, 'sso'>) =>
    buildSso({
      ...platform,
      publicBaseUrl: () => platform.addresses.publicBaseUrl(),
      connectors: accessControl.connectors,
      loginRules: accessControl.loginRules,
      users: identity.users.store,
      sessions: identity.sessions,
      issuer: identity.issuer,
    }),
  routes: async (server, sso, ctx) => {
    await server.register(ssoRoutes, { ...sso, rateLimit: ctx.loginRateLimit });
  },
} satisfies Part<Platform & Omit<Core, 'sso'>, SsoServices>;
