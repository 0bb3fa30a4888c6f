import cookie from '@fastify/cookie';
import { apiPrefix } from '@postern/contracts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { buildAccessControl, type AccessControlServices } from './access-control/index.js';
import type { Backend } from './backend/index.js';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config/config.js';
import { buildIdentity, type IdentityServices } from './identity/index.js';
import { installAccessGuard, type DeclaredRoute } from './plugins/access-guard.js';
import { installCsrfCheck } from './plugins/csrf.js';
import { installErrorHandler } from './plugins/error-handler.js';
import { installRateLimit, perMinute } from './plugins/rate-limit.js';
import { installSecurityHeaders } from './plugins/security-headers.js';
import { webConsole } from './plugins/web-console.js';
import { AccessResolver } from './access-control/access/access-resolver.js';
import { accountRoutes } from './identity/account/account.routes.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { SignedCursorAuditStore } from './modules/audit/signed-cursor.js';
import { clusterSecret } from './cluster-secrets.js';
import { authRoutes } from './identity/auth/auth.routes.js';
import type { AuditStore } from './modules/audit/index.js';
import type { AuditHealth } from './modules/audit/spool/index.js';
import { captureRoutes } from './modules/capture/capture.routes.js';
import { clientConfigFor } from './modules/client-config/client-config.service.js';
import { connectorsRoutes } from './access-control/connectors/connectors.routes.js';
import { authProviders } from './access-control/connectors/connectors.service.js';
import { watchConnectors } from './access-control/connectors/connectors.watch.js';
import { ClustersService } from './modules/clusters/clusters.service.js';
import { clustersRoutes } from './modules/clusters/clusters.routes.js';
import { UserContextService } from './modules/context/context.service.js';
import { contextRoutes } from './modules/context/context.routes.js';
import { LockWatcher } from './access-control/locks/lock-watcher.js';
import { locksRoutes } from './access-control/locks/locks.routes.js';
import { pingRoutes } from './modules/ping/ping.routes.js';
import { rolesRoutes } from './access-control/roles/roles.routes.js';
import { userTokensRoutes } from './identity/user-tokens/user-tokens.routes.js';
import { usersAdminRoutes } from './identity/users/users-admin.routes.js';
import type { WebSessionService } from './identity/web-sessions/web-sessions.service.js';
import {
  buildServerAccess,
  registerServerAccessRoutes,
  type ServerAccessServices,
} from './wings/servers/index.js';
import type { ClusterCa } from './ssh/ca.service.js';
import { buildCertIssuer, registerSshLoginRoutes } from './identity/cli-login/index.js';
import { buildSso } from './sso/index.js';
import { defaultDocsDir, docsRoutes } from './plugins/docs.js';
import { ssoRoutes } from './sso/sso.routes.js';

export interface AppDeps {
  config: Config;
  backend: Backend;
  audit: AuditStore;
  /** Refuses new sessions while the audit log cannot take events (the spool is full). */
  auditHealth?: AuditHealth;
  /** The console's build output; a missing one serves a "not built" page. */
  webDistDir: string;
  /** Markdown served at /docs/ for Help & Support; the repository's docs/ by default. */
  docsDir?: string;
  /** A pino logger; tests leave it out and get no logs. */
  logger?: FastifyBaseLogger;
  https?: { cert: string; key: string };
  /** Time for sessions, tokens and TOTP; tests move it forward instead of waiting. */
  now?: Clock;
  /** The cluster's SSH CAs; loaded (or created on a fresh cluster) from the backend when absent. */
  ca?: ClusterCa;
  /** Terminal and agent-tunnel keepalive pings (default 20 s); tests shorten it. */
  pingIntervalMs?: number;
}

export interface App {
  server: FastifyInstance;
  services: {
    sessions: WebSessionService;
    clusters: ClustersService;
    /** Watched roles and users: what the guard computes each caller's access from. */
    access: AccessResolver;
    /** Watched locks: `lockFor`/`isLocked`, and a 'lock' event when one comes into force. */
    lockWatcher: LockWatcher;
  } & IdentityServices &
    AccessControlServices &
    Omit<ServerAccessServices, 'start' | 'close'>;
  /** Every guarded route with the access it declared, for the route-table tests. */
  routes: DeclaredRoute[];
}

/**
 * A client that opens sockets and then dawdles (never finishes the TLS handshake, sends headers
 * a byte at a time) holds a socket and a parser each; these limits hand them back. Node checks
 * header deadlines on a timer, so the timer runs every second, not every 30 s, to cut such a
 * socket close to its 10 s. Bodies have no deadline: uploads of large files take their time.
 */
export const slowClientLimits = {
  tls: { handshakeTimeout: 10_000 },
  http: { headersTimeout: 10_000, connectionsCheckingInterval: 1_000 },
} as const;

/** Builds the web server without listening, so tests drive it with `inject`. */
export async function buildApp(deps: AppDeps): Promise<App> {
  const server = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    // Fastify hands `https` (or, without TLS, `http`) to Node's createServer as its options.
    ...(deps.https
      ? { https: { ...deps.https, ...slowClientLimits.tls, ...slowClientLimits.http } }
      : { http: slowClientLimits.http }),
    bodyLimit: 1024 * 1024,
    // Generated ids keep each request's log lines together without echoing client input.
    requestIdHeader: false,
  }) as unknown as FastifyInstance;

  const now = deps.now ?? systemClock;
  const watchError = (what: string) => (error: unknown) =>
    server.log.warn({ err: error }, `watching ${what} failed; listing again`);
  const lockWatcher = new LockWatcher(deps.backend, now, watchError('locks'));
  const identity = buildIdentity({ ...deps, now, locks: lockWatcher });
  const accessControl = buildAccessControl({ ...deps, now, identity });
  const { sessions } = identity;
  // Hash the dummy password now, so the first unknown-user sign-in costs no more than others.
  void identity.passwords.dummyHash();

  // WebAuthn devices stored before the credential index existed get their records, once.
  await identity.credentialIndex.backfill();
  // Presets first, so the watched roles start with them; then every cache loads before serving.
  await accessControl.roles.seedPresets();
  const access = new AccessResolver(deps.backend, watchError('roles and users'));
  // The login page's providers come from memory: ping and config.js are public and hot.
  const connectorCache = watchConnectors(deps.backend, watchError('connectors'));
  const providers = () => authProviders(connectorCache.values());
  await Promise.all([access.start(), lockWatcher.start(), connectorCache.start()]);
  const serverAccess = await buildServerAccess({
    ...deps,
    now,
    locks: lockWatcher,
    access,
    onError: watchError,
  });
  await serverAccess.start();
  const clusters = new ClustersService(deps.config, serverAccess.inventory);
  server.addHook('onClose', async () => {
    await serverAccess.close();
    await Promise.all([access.close(), lockWatcher.close(), connectorCache.close()]);
  });

  installErrorHandler(server);
  await installSecurityHeaders(server);
  await server.register(cookie);
  await installRateLimit(server);
  const routes = installAccessGuard(server, { sessions, access, locks: lockWatcher }, [
    `${apiPrefix}/`,
  ]);
  installCsrfCheck(server);

  const loginRateLimit = perMinute(deps.config.auth.loginRateLimit);
  await server.register(pingRoutes, { config: deps.config, providers });
  await server.register(authRoutes, { ...identity, audit: deps.audit, loginRateLimit });
  const { usersAdmin } = accessControl;
  await server.register(userTokensRoutes, { ...identity, usersAdmin, loginRateLimit });
  await server.register(accountRoutes, { ...identity, loginRateLimit });
  await server.register(clustersRoutes, { clusters });
  const clusterName = deps.config.clusterName;
  const cursorSecret = await clusterSecret(deps.backend, 'audit_cursor');
  const signedAudit = new SignedCursorAuditStore(deps.audit, cursorSecret);
  await server.register(auditRoutes, { audit: signedAudit, clusterName });
  const context = new UserContextService({ clusters, roleNames: () => access.roleNames() });
  await server.register(contextRoutes, { context, clusterName });
  await server.register(rolesRoutes, accessControl);
  await server.register(usersAdminRoutes, accessControl);
  await server.register(connectorsRoutes, accessControl);
  const issuer = buildCertIssuer({ ...deps, now, access, locks: lockWatcher, ...serverAccess });
  const sso = buildSso({
    ...deps,
    now,
    connectors: accessControl.connectors,
    users: identity.users.store,
    sessions,
    locks: lockWatcher,
    issuer,
  });
  await server.register(ssoRoutes, { ...sso, rateLimit: loginRateLimit });
  await server.register(locksRoutes, { locks: accessControl.locks, clusterName });
  await registerServerAccessRoutes(server, serverAccess, {
    config: deps.config,
    guard: { sessions, access },
    rateLimit: loginRateLimit,
    now,
    pingIntervalMs: deps.pingIntervalMs,
  });
  await registerSshLoginRoutes(
    server,
    { ...deps, now, identity, access, locks: lockWatcher, ...serverAccess, issuer },
    loginRateLimit,
  );
  await server.register(captureRoutes);
  await server.register(docsRoutes, { dir: deps.docsDir ?? defaultDocsDir });
  await server.register(webConsole, {
    distDir: deps.webDistDir,
    sessions,
    clientConfig: () => clientConfigFor(deps.config, providers()),
    locked: (session) =>
      lockWatcher.isLocked({
        user: session.user,
        roles: access.resolve(session.user, session.roles).roles,
      }),
  });

  await server.ready();
  return {
    server,
    services: {
      ...identity,
      ...accessControl,
      clusters,
      access,
      lockWatcher,
      ...serverAccess,
    },
    routes,
  };
}
