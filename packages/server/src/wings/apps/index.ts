import { listContext } from '../../http/resource-listers.js';
import { SessionTrackerStore } from '../../modules/sessions/session-tracker.store.js';
import type { ServerContext } from '../../part.js';
import type { Wing } from '../wing.js';
import { checkAppHealth } from './app-health.js';
import { agentAppHeartbeats } from './agent-apps.js';
import { AppHost } from './app-host.js';
import { AppJwtSigner } from './app-jwt.js';
import { AppRequestAudit } from './app-request-audit.js';
import { AppSessionTracking } from './app-session-tracking.js';
import { AppSessionsService } from './app-sessions.service.js';
import { appsRoutes } from './apps.routes.js';
import { AppsService } from './apps.service.js';
import { AppProxy } from './proxy/app-proxy.js';
import { appConnectRoutes } from './app-connect.routes.js';
import { LeafAppAgents } from './leaf/leaf-app-agents.js';

/**
 * Applications: web apps proxied by host name (`<name>.<proxy host>` or their own public_addr)
 * with the user's signed identity, launched from the console through a single-use exchange that
 * sets the app session cookie on the app's own origin (docs/apps.md).
 */
export const appsWing = {
  name: 'apps',
  build: (ctx: ServerContext) => buildApps(ctx),
  routes: async (server, s, ctx) => {
    await server.register(appsRoutes, {
      apps: s.apps,
      sessions: s.appSessions,
      jwt: s.appJwt,
      appOrigin: (host) => appOrigin(ctx, host),
      ...listContext(ctx),
      sessionMfa: ctx.identity.sessionMfa,
      leaves: {
        reach: ctx.leafReach,
        proxyHost: () => new URL(ctx.addresses.publicBaseUrl()).hostname,
      },
    });
    await server.register(appConnectRoutes, {
      apps: s.apps,
      callers: ctx.identity.tunnelCallers,
      clusterName: ctx.config.clusterName,
      access: ctx.access,
      locks: ctx.locks,
      audit: ctx.audit,
      dialAgentApp: s.dialAgentApp,
      httpApps: s.appHost,
      tracking: s.appTracking,
    });
  },
  start: async (s) => {
    await s.appJwt.start();
    await s.apps.start();
    s.stopHealth = checkAppHealth(s.apps, s.healthIntervalMs);
    s.appHost.startSweeping();
    s.stopSessionSweep = everyInterval(sessionSweepMs, () =>
      s.appSessions.sweep((name) => s.apps.get(name)),
    );
  },
  close: async (s) => {
    s.stopHealth?.();
    s.stopSessionSweep?.();
    s.appHost.stop();
    s.leafAgents.close();
    s.appJwt.stop();
    s.appRequestAudit.flushAll();
    await s.appSessions.writeActivity().catch(() => undefined);
    s.appProxy.close();
    await s.apps.close();
  },
  kinds: (s) => [{ kind: 'app', count: () => s.apps.count(), find: (name) => s.apps.find(name) }],
} satisfies Wing<AppsServices>;

export type AppsServices = ReturnType<typeof buildApps>;

/** How often stored app sessions are checked for a sign-out, a lock or a role change. */
const sessionSweepMs = 5_000;

/** Runs `round` every `ms` (never two at once; a failed round waits for the next). */
function everyInterval(ms: number, round: () => Promise<unknown>): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    round()
      .catch(() => undefined)
      .finally(() => (running = false));
  }, ms);
  timer.unref();
  return () => clearInterval(timer);
}

/** `https://<host>[:port]`: an app's origin, on the console's scheme and public port. */
function appOrigin(ctx: ServerContext, host: string): string {
  const base = new URL(ctx.addresses.publicBaseUrl());
  return `${base.protocol}//${host}${base.port ? `:${base.port}` : ''}`;
}

function buildApps(ctx: ServerContext) {
  const { backend, audit, now, config, access, locks, addresses } = ctx;
  const consoleUrl = () => addresses.publicBaseUrl();
  const apps = new AppsService(backend, audit, {
    now,
    onError: ctx.onError('apps'),
    configApps: config.apps,
    proxyHost: () => new URL(consoleUrl()).hostname,
  });
  // Browser sessions and `postern proxy app` connections alike are listed on Active Sessions.
  const appTracking = new AppSessionTracking({
    store: new SessionTrackerStore(backend),
    proxyId: ctx.hub.proxyId,
    clusterName: config.clusterName,
    now,
  });
  // Tunnels to trusted leaves for app sessions on their apps, pooled per session.
  const leafAgents = new LeafAppAgents();
  const appSessions = new AppSessionsService({
    backend,
    audit,
    webSessions: ctx.identity.sessions,
    access,
    locks,
    tracking: appTracking,
    onEnded: (sid) => leafAgents.drop(sid),
    now,
  });
  const appJwt = new AppJwtSigner(backend, consoleUrl, now);
  // Apps agents serve: reported on their heartbeats, reached through their tunnels.
  ctx.agentReports.add('app', agentAppHeartbeats(apps, config.heartbeatIntervalMs * 3));
  const dialAgentApp = (name: string) => ctx.tunnels.dial({ kind: 'app', name });
  const appProxy = new AppProxy();
  const appRequestAudit = new AppRequestAudit(audit);
  const appHost = new AppHost({
    apps,
    sessions: appSessions,
    jwt: appJwt,
    proxy: appProxy,
    audit: appRequestAudit,
    consoleUrl,
    clusterName: config.clusterName,
    publicPort: () => new URL(consoleUrl()).port,
    dialAgentApp,
    leafReach: ctx.leafReach,
    leafAgents,
  });
  ctx.hostRoutes.add(appHost);
  return {
    apps,
    appSessions,
    appTracking,
    appJwt,
    appProxy,
    appRequestAudit,
    appHost,
    leafAgents,
    dialAgentApp,
    healthIntervalMs: config.heartbeatIntervalMs,
    stopHealth: undefined as (() => void) | undefined,
    stopSessionSweep: undefined as (() => void) | undefined,
  };
}
