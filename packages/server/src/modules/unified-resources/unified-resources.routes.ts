import {
  apiPaths,
  unifiedResourcesQuerySchema,
  type UnifiedResourcesResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { notAuthenticated } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import type { ResourceListers } from '../../http/resource-listers.js';
import { unifiedPage } from './unified-resources.service.js';

/**
 * `GET sites/{clusterId}/resources` (reference §1.5 [now]): every kind the caller may list, in
 * one list. Any signed-in user may ask; each kind is there only if their ACL lets them list it,
 * and holds only what their roles let them see.
 */
export async function unifiedResourcesRoutes(
  app: FastifyInstance,
  { listers, clusterName }: { listers: ResourceListers; clusterName: string },
) {
  app.get<{ Params: { clusterId: string } }>(
    apiPaths.patterns.unifiedResources,
    { config: { access: 'authenticated' } },
    async (request): Promise<UnifiedResourcesResponse> => {
      const clusterId = resolveClusterId(request.params.clusterId, clusterName);
      const identity = request.identity;
      if (!identity) throw notAuthenticated();
      const query = parseInput(unifiedResourcesQuerySchema, request.query);
      return unifiedPage(listers, identity, query, clusterId);
    },
  );
}
