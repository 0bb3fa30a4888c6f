import { hashSignedBodies } from './identity/cli-login/signed-body.js';
import { TrustedProxies } from './net/proxy-protocol.js';
import { HostRoutes, hostRoutingServerFactory } from './http/host-routes.js';
import { ResourceListers } from './http/resource-listers.js';
import { TlsRoutes } from './http/tls-routes.js';
import cookie from '@fastify/cookie';
import websocket from '@fastify/websocket';
import { apiPrefix } from '@postern/contracts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { accessControlPart } from './access-control/index.js';
import type { ClusterCa } from './ssh/ca.service.js';
import type { Backend } from './backend/index.js';
import type { Clock } from './clock.js';
import type { Config } from './config/config.js';
import { identityPart } from './identity/index.js';
import type { AuditStore } from './modules/audit/index.js';
import type { AuditHealth } from './modules/audit/spool/index.js';
import type { ClustersService } from './modules/clusters/clusters.service.js';
import type { Core, ServedKind, ServerContext } from './part.js';
import { buildPlatform, type Platform } from './platform.js';
import { buildClusters, platformRoutes } from './platform-routes.js';
import {
  buildTrustedClusters,
  type TrustedClusters,
  type TrustedClustersOptions,
} from './modules/trusted-clusters/index.js';
import { installAccessGuard, type DeclaredRoute } from './plugins/access-guard.js';
import { installCsrfCheck } from './plugins/csrf.js';
import { defaultDocsDir, docsRoutes } from './plugins/docs.js';
import { closeConnectionsWhileDraining } from './modules/health/drain-connections.js';
import { installErrorHandler } from './plugins/error-handler.js';
import { installRateLimit } from './plugins/rate-limit.js';
import { installSecurityHeaders } from './plugins/security-headers.js';
import { webConsole } from './plugins/web-console.js';
import { clientConfigFor } from './modules/client-config/client-config.service.js';
import { ssoPart } from './sso/index.js';
import { wings } from './wings/index.js';
import type { Wing, WingServices } from './wings/wing.js';
import { preferredCiphers } from './tls/preferred-ciphers.js';

export interface AppDeps {
  config: Config;
  /** How this cluster reaches the roots it trusts (tests accept their self-signed roots). */
  trustedClusters?: TrustedClustersOptions;
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
  /** The access protocols to serve: the registry (wings/index.ts) unless a test adds its own. */
  wings?: readonly Wing<object>[];
}

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (
  i: infer I,
) => void
  ? I
  : never;
/** Every wing's services, side by side (their names do not clash: the wing tests check it). */
type AllWingServices = UnionToIntersection<WingServices<(typeof wings)[number]>>;

export interface App {
  server: FastifyInstance;
  /** Every part's services side by side, as tests and `postern start` reach them. */
  services: Omit<Platform, 'start' | 'close' | 'locks'> &
    Core['identity'] &
    Core['accessControl'] & {
      sso: Core['sso'];
      clusters: ClustersService;
      /** Trusted clusters: this cluster's roots (as a leaf) and its leaves (as a root). */
      trustedClusters: TrustedClusters;
      /** The watched locks (`locks` here is access control's LocksService, which writes them). */
      lockWatcher: Platform['locks'];
    } & AllWingServices;
  /** The context every part and wing was built with; `postern start` runs listeners with it. */
  context: ServerContext;
  /** Each registered wing with the services it built. */
  wings: ReadonlyArray<{ wing: Wing<object>; services: object }>;
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

/**
 * Builds the web server without listening, so tests drive it with `inject`: the platform, then
 * the core parts (identity, access control, single sign-on), then every wing, each from what
 * was built before it; then their routes behind the access guard.
 */
export async function buildApp(deps: AppDeps): Promise<App> {
  // Requests for an application's own host name go to its wing before Fastify sees them.
  const hostRoutes = new HostRoutes();
  // TLS connections for another server name (the Kubernetes listener's) go to their wing.
  const tlsRoutes = new TlsRoutes();
  const server = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : { logger: false }),
    // The same server Fastify would make from `https` (or, without TLS, `http`) options.
    serverFactory: hostRoutingServerFactory(
      hostRoutes,
      deps.https
        ? {
            https: {
              ...deps.https,
              ...slowClientLimits.tls,
              ...slowClientLimits.http,
              // Apps, tunnels and terminals relay bulk data through this port too.
              ciphers: preferredCiphers,
              honorCipherOrder: true,
            },
          }
        : { http: slowClientLimits.http },
      tlsRoutes,
      new TrustedProxies(deps.config.trustedProxies),
    ),
    bodyLimit: 1024 * 1024,
    // Behind an HTTP load balancer every client shares its address; from the ones configured,
    // X-Forwarded-For says who the client is (rate limits, audit). None by default: a forged
    // header from anyone else is ignored.
    trustProxy: deps.config.trustedProxies.length > 0 ? deps.config.trustedProxies : false,
    // Generated ids keep each request's log lines together without echoing client input.
    requestIdHeader: false,
  }) as unknown as FastifyInstance;

  const platform = await buildPlatform(deps, server.log);
  const identity = identityPart.build(platform);
  const accessControl = accessControlPart.build({ ...platform, identity });
  const sso = ssoPart.build({ ...platform, identity, accessControl });
  const built: { wing: Wing<object>; services: object }[] = [];
  const ctx: ServerContext = {
    ...platform,
    identity,
    accessControl,
    sso,
    guard: { sessions: identity.sessions, access: platform.access, locks: platform.locks },
    kinds: () => built.flatMap(({ wing, services }): readonly ServedKind[] => wing.kinds(services)),
    resourceListers: new ResourceListers(),
    hostRoutes,
    tlsRoutes,
    log: (level, message, fields) => server.log[level](fields ?? {}, message),
  };
  for (const wing of deps.wings ?? (wings as readonly Wing<object>[])) {
    built.push({ wing, services: await wing.build(ctx) });
  }
  // Access requests name resources of any kind a wing serves and can find.
  accessControl.accessRequests.findResource = (kind, name) => {
    const find = ctx.kinds().find((served) => served.kind === kind)?.find;
    return find ? find(name) : null;
  };
  const trustedClusters = buildTrustedClusters(ctx, deps.trustedClusters);
  const clusters = buildClusters(ctx, () => trustedClusters.remoteClusters.list());

  // Presets before the watched roles load; every cache loads before the server answers.
  await accessControlPart.start(accessControl);
  await identityPart.start(identity);
  await platform.start();
  for (const { wing, services } of built) await wing.start?.(services);
  // Before every part's routes: the bodies of certificate-signed requests are hashed as they come.
  hashSignedBodies(server);
  // Listening, this proxy knows its port: it joins the cluster's list of proxies for agents.
  server.addHook('onListen', async () => {
    const address = server.server.address();
    if (typeof address === 'object' && address) {
      platform.addresses.report('web', { host: deps.config.webAddr.host, port: address.port });
    }
    await platform.proxies.announce().catch((error: unknown) => {
      server.log.error({ err: error }, 'cannot register this proxy for agents');
    });
  });
  server.addHook('onClose', async () => {
    await trustedClusters.close();
    for (const { wing, services } of [...built].reverse()) await wing.close?.(services);
    await platform.close();
    await accessControlPart.close(accessControl);
  });

  installErrorHandler(server);
  await installSecurityHeaders(server);
  closeConnectionsWhileDraining(server, () => platform.hub.draining);
  await server.register(cookie);
  await installRateLimit(server);
  const routes = installAccessGuard(server, ctx.guard, [`${apiPrefix}/`]);
  installCsrfCheck(server);
  // Frames are small (keystrokes, acks); a large one before authentication is an attack.
  await server.register(websocket, { options: { maxPayload: 1024 * 1024 } });

  await platformRoutes(server, ctx, clusters);
  await identityPart.routes(server, identity, ctx);
  await accessControlPart.routes(server, accessControl, ctx);
  await ssoPart.routes(server, sso, ctx);
  for (const { wing, services } of built) await wing.routes(server, services, ctx);
  await trustedClusters.routes(server);
  await server.register(docsRoutes, { dir: deps.docsDir ?? defaultDocsDir });
  await server.register(webConsole, {
    distDir: deps.webDistDir,
    sessions: identity.sessions,
    clientConfig: () => clientConfigFor(deps.config, accessControl.providers()),
    locked: (session) =>
      platform.locks.isLocked({
        user: session.user,
        roles: platform.access.resolve(session.user, session.roles).roles,
      }),
  });

  await server.ready();
  // The leaf's tunnels serve the routes, so they open once the routes are ready.
  await trustedClusters.start(server);
  const { start: _start, close: _close, locks: _locks, ...shared } = platform;
  const wingServices = Object.assign({}, ...built.map((b) => b.services)) as AllWingServices;
  return {
    server,
    services: {
      ...shared,
      ...identity,
      ...accessControl,
      sso,
      clusters,
      trustedClusters,
      lockWatcher: platform.locks,
      ...wingServices,
    },
    context: ctx,
    wings: built,
    routes,
  };
}
