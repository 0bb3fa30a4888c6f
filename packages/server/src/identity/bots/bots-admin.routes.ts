import {
  apiPaths,
  botListQuerySchema,
  botTokenRequestSchema,
  createBotRequestSchema,
  okBody,
  updateBotRequestSchema,
  type BotJson,
  type BotListResponse,
  type CreateBotResponse,
  type IssuedBotToken,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { parseInput } from '../../http/parse-input.js';
import { actorOf } from '../../http/request-identity.js';
import type { BotsAdminService } from './bots-admin.service.js';

interface BotsAdminRoutesOptions {
  botsAdmin: BotsAdminService;
  clusterName: string;
}

type ClusterParams = { Params: { clusterId: string } };
type BotParams = { Params: { clusterId: string; name: string } };

/**
 * Manage Bots (docs/bots.md), at the reference's `machine-id/bot` paths. The rules are the
 * service's; a route only reads its input and names the verb it needs on `bot`.
 */
export async function botsAdminRoutes(
  app: FastifyInstance,
  { botsAdmin, clusterName }: BotsAdminRoutesOptions,
) {
  app.get<ClusterParams>(
    apiPaths.patterns.bots,
    { config: { access: { area: 'bots', verb: 'list' } } },
    async (request): Promise<BotListResponse> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const query = parseInput(botListQuerySchema, request.query);
      return botsAdmin.page(query, actorOf(request));
    },
  );

  app.post<ClusterParams>(
    apiPaths.patterns.bots,
    { config: { access: { area: 'bots', verb: 'create' } } },
    async (request): Promise<CreateBotResponse> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const body = parseInput(createBotRequestSchema, request.body);
      return botsAdmin.create(body, actorOf(request));
    },
  );

  app.get<BotParams>(
    apiPaths.patterns.bot,
    { config: { access: { area: 'bots', verb: 'read' } } },
    async (request): Promise<BotJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      return botsAdmin.get(request.params.name, actorOf(request));
    },
  );

  app.put<BotParams>(
    apiPaths.patterns.bot,
    { config: { access: { area: 'bots', verb: 'edit' } } },
    async (request): Promise<BotJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const body = parseInput(updateBotRequestSchema, request.body);
      return botsAdmin.update(request.params.name, body, actorOf(request));
    },
  );

  app.delete<BotParams>(
    apiPaths.patterns.bot,
    { config: { access: { area: 'bots', verb: 'remove' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      await botsAdmin.remove(request.params.name, actorOf(request));
      return okBody;
    },
  );

  // A join token lets a new copy act as the bot: as much as creating one.
  app.post<BotParams>(
    apiPaths.patterns.botToken,
    { config: { access: { area: 'bots', verb: 'create' } } },
    async (request): Promise<IssuedBotToken> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const body = parseInput(botTokenRequestSchema, request.body ?? {});
      return botsAdmin.newToken(request.params.name, body.token_ttl, actorOf(request));
    },
  );
}
