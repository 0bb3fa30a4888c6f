import { apiPaths, type ResourcesCheckResponse } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import type { ResourceListers } from '../../http/resource-listers.js';
import { notAuthenticated } from '../../errors.js';

/**
 * `GET sites/{clusterId}/resources/check` (spec §7; reference §1.14): whether the signed-in user
 * may reach any resource yet, which decides whether the console nudges them into Discover. The
 * answer is what the resource lists would show them: each wing's own list and RBAC filter.
 */
export async function resourcesCheckRoutes(
  app: FastifyInstance,
  { listers, clusterName }: { listers: ResourceListers; clusterName: string },
) {
  app.get<{ Params: { clusterId: string } }>(
    apiPaths.patterns.resourcesCheck,
    { config: { access: 'authenticated' } },
    async (request): Promise<ResourcesCheckResponse> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const identity = request.identity;
      if (!identity) throw notAuthenticated();
      return { hasResource: listers.anyVisibleTo(identity.acl, identity.roleSet) };
    },
  );
}
