import { apiPaths, type UserContext } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { notAuthenticated } from '../../errors.js';
import type { UserContextService } from './context.service.js';

interface ContextRoutesOptions {
  context: UserContextService;
  clusterName: string;
}

/** `GET /sites/{clusterId}/context`: every signed-in user may read their own. */
export async function contextRoutes(app: FastifyInstance, options: ContextRoutesOptions) {
  app.get<{ Params: { clusterId: string } }>(
    apiPaths.patterns.context,
    { config: { access: 'authenticated' } },
    async (request): Promise<UserContext> => {
      resolveClusterId(request.params.clusterId, options.clusterName);
      if (!request.identity) throw notAuthenticated();
      return options.context.contextFor(request.identity);
    },
  );
}
