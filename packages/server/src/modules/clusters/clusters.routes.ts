import { apiPaths } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { ClustersService } from './clusters.service.js';

export async function clustersRoutes(
  app: FastifyInstance,
  { clusters }: { clusters: ClustersService },
) {
  // Any signed-in user may see the cluster they are in; what is inside is guarded per resource.
  app.get(apiPaths.sites, { config: { access: 'authenticated' } }, () => clusters.list());
}
