import type { Core, Part } from '../part.js';
import type { Platform } from '../platform.js';
import { buildAccessControl, type AccessControlServices as Admin } from './build-access-control.js';
import { connectorsRoutes } from './connectors/connectors.routes.js';
import { authProviders } from './connectors/connectors.service.js';
import { watchConnectors } from './connectors/connectors.watch.js';
import { locksRoutes } from './locks/locks.routes.js';
import { accessRequestsRoutes } from './access-requests/access-requests.routes.js';
import { cliRequestsRoutes } from './access-requests/cli-requests.routes.js';
import { AccessRequestsService } from './access-requests/access-requests.service.js';
import { AccessRequestsStore } from './access-requests/access-requests.store.js';
import { formatHostPort } from '../config/address.js';
import { rolesRoutes } from './roles/roles.routes.js';
import { usersAdminRoutes } from '../identity/users/users-admin.routes.js';

export { buildAccessControl } from './build-access-control.js';

/**
 * Who may do what: roles, user administration, locks and the auth connectors. The watched roles,
 * users and locks that every request is judged by are the platform's (platform.ts).
 */
export const accessControlPart = {
  name: 'access-control',
  build: (needs: Platform & Pick<Core, 'identity'>) => {
    const admin = buildAccessControl(needs);
    // The login page's providers come from memory: ping and config.js are public and hot.
    const connectorCache = watchConnectors(needs.backend, needs.onError('connectors'));
    const providers = () => authProviders(connectorCache.values());
    const publicUrl = `https://${formatHostPort(needs.config.publicAddr)}`;
    const accessRequests = new AccessRequestsService({
      store: new AccessRequestsStore(needs.backend),
      audit: needs.audit,
      now: needs.now,
      roleNames: () => needs.access.roleNames(),
      roleSetOf: (user, roles) => needs.access.roleSetFor(user, roles),
      locks: needs.locks,
      reviewUrl: (id) => `${publicUrl}/web/requests/${encodeURIComponent(id)}`,
    });
    // Reviewers hear of requests through the integrations (chat, e-mail, webhooks).
    accessRequests.notifier = needs.integrations;
    return { ...admin, connectorCache, providers, accessRequests };
  },
  // Presets first, so the watched roles hold them by the time the server answers.
  start: async (services) => {
    await services.roles.seedPresets();
    await services.connectorCache.start();
  },
  close: (services) => services.connectorCache.close(),
  routes: async (server, services, ctx) => {
    const clusterName = ctx.config.clusterName;
    await server.register(rolesRoutes, services);
    await server.register(usersAdminRoutes, services);
    await server.register(connectorsRoutes, services);
    await server.register(locksRoutes, { locks: services.locks, clusterName });
    await server.register(accessRequestsRoutes, {
      accessRequests: services.accessRequests,
      clusterName,
    });
    await server.register(cliRequestsRoutes, {
      accessRequests: services.accessRequests,
      certAuth: ctx.identity.certAuth,
      issuer: ctx.identity.issuer,
    });
  },
} satisfies Part<Platform & Pick<Core, 'identity'>, AccessControlServices>;

export type AccessControlServices = Admin & {
  connectorCache: ReturnType<typeof watchConnectors>;
  /** Access requests: made, reviewed, and assumed through the renew call. */
  accessRequests: AccessRequestsService;
  /** The sign-in providers the login page offers, from the watched connectors. */
  providers: () => ReturnType<typeof authProviders>;
};
