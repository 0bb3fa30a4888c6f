import type { ClusterJson } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { clusterSecret } from './cluster-secrets.js';
import { AuditSearchService } from './modules/audit/audit-search.service.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { SignedCursorAuditStore } from './modules/audit/signed-cursor.js';
import { captureRoutes } from './modules/capture/capture.routes.js';
import { clusterAlertsRoutes } from './modules/cluster-alerts/index.js';
import { ClustersService } from './modules/clusters/clusters.service.js';
import { clustersRoutes } from './modules/clusters/clusters.routes.js';
import { connectionDiagnosticsRoutes } from './modules/connection-diagnostics/connection-diagnostics.routes.js';
import { UserContextService } from './modules/context/context.service.js';
import { contextRoutes } from './modules/context/context.routes.js';
import { healthRoutes } from './modules/health/health.routes.js';
import { integrationsRoutes } from './modules/integrations/integrations.routes.js';
import { pingRoutes } from './modules/ping/ping.routes.js';
import { resourcesCheckRoutes } from './modules/resources-check/resources-check.routes.js';
import { unifiedResourcesRoutes } from './modules/unified-resources/unified-resources.routes.js';
import { cliRecordingsRoutes } from './modules/recordings/cli-recordings.routes.js';
import { cliActiveSessionsRoutes } from './modules/sessions/cli-active-sessions.routes.js';
import { recordingsRoutes } from './modules/recordings/recordings.routes.js';
import { RecordingsService } from './modules/recordings/recordings.service.js';
import { activeSessionsRoutes } from './modules/sessions/active-sessions.routes.js';
import { terminalLeaveRoutes } from './modules/terminal/terminal-leave.routes.js';
import type { ServerContext } from './part.js';

/** The clusters list, whose counts come from every wing's resource kinds. */
export function buildClusters(
  ctx: Pick<ServerContext, 'config' | 'addresses' | 'kinds'>,
  leaves: () => ClusterJson[] = () => [],
) {
  const count = (kind: string) =>
    ctx.kinds().reduce((sum, k) => (k.kind === kind ? sum + k.count() : sum), 0);
  return new ClustersService(ctx.config, ctx.addresses, {
    nodeCount: () => count('node'),
    leaves,
  });
}

/**
 * The routes every access protocol shares: health and readiness, ping, clusters and the user's context, the audit
 * log, live sessions and recordings, the connection test, integrations, cluster alerts, and the
 * console's error capture.
 */
export async function platformRoutes(
  server: FastifyInstance,
  ctx: ServerContext,
  clusters: ClustersService,
) {
  const { config, addresses, backend, hub, recordings, audit } = ctx;
  const clusterName = config.clusterName;
  const providers = ctx.accessControl.providers;
  await server.register(pingRoutes, { config, addresses, providers });
  // Outside the web API, for load balancers: liveness and readiness (docs/high-availability.md).
  await server.register(healthRoutes, { readiness: ctx.readiness });
  await server.register(clustersRoutes, { clusters, certAuth: ctx.identity.certAuth });
  const cursorSecret = await clusterSecret(backend, 'audit_cursor');
  const signedAudit = new SignedCursorAuditStore(audit, cursorSecret);
  const search = new AuditSearchService(signedAudit);
  await server.register(auditRoutes, { search, clusterName, certAuth: ctx.identity.certAuth });
  const context = new UserContextService({
    clusters,
    roleNames: () => ctx.access.roleNames(),
    requests: ctx.access.requests,
  });
  await server.register(contextRoutes, { context, clusterName });
  await server.register(activeSessionsRoutes, { hub, clusterName });
  const { resumes, relayLeave } = ctx.terminalResumes;
  await server.register(terminalLeaveRoutes, { resumes, relayLeave });
  const recordingsService = new RecordingsService(recordings, audit);
  await server.register(recordingsRoutes, { recordings: recordingsService, clusterName });
  const certAuth = ctx.identity.certAuth;
  await server.register(cliRecordingsRoutes, { recordings: recordingsService, search, certAuth });
  await server.register(cliActiveSessionsRoutes, { hub, certAuth });
  const diagnostics = ctx.connectionDiagnostics;
  await server.register(connectionDiagnosticsRoutes, { diagnostics, clusterName });
  await server.register(integrationsRoutes, { integrations: ctx.integrations, clusterName });
  await server.register(clusterAlertsRoutes, { alerts: ctx.clusterAlerts, clusterName });
  await server.register(captureRoutes, { rateLimit: ctx.loginRateLimit });
  await server.register(resourcesCheckRoutes, { listers: ctx.resourceListers, clusterName });
  const { preferences } = ctx.identity;
  await server.register(unifiedResourcesRoutes, {
    listers: ctx.resourceListers,
    clusterName,
    searchAs: (actor, type) => ctx.accessControl.accessRequests.searchAs(actor, type),
    pinnedOf: (user, clusterId) => preferences.pinnedOf(user, clusterId),
  });
}
