import {
  accessRequestScopes,
  apiPaths,
  createAccessRequestSchema,
  okBody,
  submitReviewSchema,
  type AccessRequestJson,
  type AccessRequestList,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { resolveClusterId } from '../../cluster-context.js';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import type { AccessRequestsService } from './access-requests.service.js';

interface AccessRequestsRoutesOptions {
  accessRequests: AccessRequestsService;
  clusterName: string;
}

type ClusterParams = { Params: { clusterId: string } };
type RequestParams = { Params: { clusterId: string; requestId: string } };

const listQuerySchema = z.object({ scope: z.enum(accessRequestScopes).default('all') });

/** Access requests (docs/access-requests.md): list, create, read, review, delete. */
export async function accessRequestsRoutes(
  app: FastifyInstance,
  { accessRequests, clusterName }: AccessRequestsRoutesOptions,
) {
  app.get<ClusterParams>(
    apiPaths.patterns.accessRequests,
    { config: { access: { area: 'accessRequests', verb: 'list' } } },
    async (request): Promise<AccessRequestList> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const { scope } = parseInput(listQuerySchema, request.query);
      return { items: await accessRequests.list(actorOf(request), scope) };
    },
  );

  app.post<ClusterParams>(
    apiPaths.patterns.accessRequests,
    { config: { access: { area: 'accessRequests', verb: 'create' } } },
    async (request): Promise<AccessRequestJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const body = parseInput(createAccessRequestSchema, request.body);
      return accessRequests.create(body, actorOf(request));
    },
  );

  app.get<RequestParams>(
    apiPaths.patterns.accessRequest,
    { config: { access: { area: 'accessRequests', verb: 'read' } } },
    async (request): Promise<AccessRequestJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      return accessRequests.get(request.params.requestId, actorOf(request));
    },
  );

  app.post<RequestParams>(
    apiPaths.patterns.accessRequestReviews,
    { config: { access: { area: 'accessRequests', verb: 'read' } } },
    async (request): Promise<AccessRequestJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const body = parseInput(submitReviewSchema, request.body);
      return accessRequests.review(request.params.requestId, body, actorOf(request));
    },
  );

  // Owners delete their own; the service checks (an admin's rule may allow any).
  app.delete<RequestParams>(
    apiPaths.patterns.accessRequest,
    { config: { access: { area: 'accessRequests', verb: 'read' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      await accessRequests.remove(request.params.requestId, actorOf(request));
      return okBody;
    },
  );
}
