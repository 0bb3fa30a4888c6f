import { apiPaths } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import type { ClustersService } from './clusters.service.js';

export async function clustersRoutes(
  app: FastifyInstance,
  {
    clusters,
    certAuth,
  }: { clusters: ClustersService; certAuth: Pick<CertRequestAuth, 'identify'> },
) {
  // Any signed-in user may see the cluster they are in; what is inside is guarded per resource.
  app.get(apiPaths.sites, { config: { access: 'authenticated' } }, () => clusters.list());
  // The same for `postern clusters`, signed with the login's certificate (public for the guard:
  // the signature authenticates).
  app.get(apiPaths.cliClusters, { config: { access: 'public' } }, async (request) => {
    await certAuth.identify(request);
    return clusters.list();
  });
}
