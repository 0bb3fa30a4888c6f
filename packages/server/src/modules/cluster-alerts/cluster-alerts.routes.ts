import { apiPaths, type ClusterAlert } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import type { ClusterAlertsService } from './cluster-alerts.service.js';

interface ClusterAlertsRoutesOptions {
  alerts: ClusterAlertsService;
  clusterName: string;
}

/**
 * `GET /sites/{clusterId}/alerts` (reference §1): the alerts in force, for every signed-in user:
 * they are posted to be read by everyone who uses the console.
 */
export async function clusterAlertsRoutes(
  app: FastifyInstance,
  { alerts, clusterName }: ClusterAlertsRoutesOptions,
) {
  app.get<{ Params: { clusterId: string } }>(
    apiPaths.patterns.clusterAlerts,
    { config: { access: 'authenticated' } },
    async (request): Promise<{ alerts: ClusterAlert[] }> => {
      resolveClusterId(request.params.clusterId, clusterName);
      return { alerts: await alerts.list() };
    },
  );
}
