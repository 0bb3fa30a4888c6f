import type { FastifyInstance } from 'fastify';
import type { ServerContext } from '../../../part.js';
import type { InventoryService } from '../nodes/inventory.service.js';
import type { TerminalService } from '../terminal/terminal.service.js';
import { assistSockets } from './assist-sockets.js';
import { AssistResources } from './assist-resources.js';
import { AssistServers } from './assist-tools.js';
import { assistRoutes } from './assist.routes.js';
import { AssistService } from './assist.service.js';
import { ChatModel } from './chat-model.js';
import { ConversationsStore } from './conversations.store.js';
import { UserRateLimiter } from '../user-rate-limiter.js';

/**
 * The assistant (docs/assist.md): a chat with the admin's model that knows the servers its user
 * may reach, and runs the commands the user approves as that user's own sessions. It lives with
 * the servers because servers are what it reaches; without `assist.openai` it is off.
 */
export function buildAssist(ctx: ServerContext, inventory: InventoryService) {
  const settings = ctx.config.assist;
  const model = settings && new ChatModel(settings);
  return new AssistService({
    store: new ConversationsStore(ctx.backend),
    model,
    servers: new AssistServers(inventory),
    resources: new AssistResources(ctx.resourceListers, ctx.config.clusterName),
    audit: ctx.audit,
    clusterName: ctx.config.clusterName,
    now: ctx.now,
    onError: ctx.onError('assistant'),
    limiter: settings && assistRateLimiter(settings.rateLimit, ctx.now),
  });
}

/** A model's answers cost money and the model's time: each user gets an allowance of requests. */
const assistRateLimiter = (settings: { burst: number; perSecond: number }, now: () => number) =>
  new UserRateLimiter(
    settings,
    now,
    (waitS, { burst, perSecond }) =>
      `you have asked the assistant too often: try again in ${waitS} s (at most ${burst} requests at once, then ${Math.round(perSecond * 60)} a minute)`,
  );

export async function registerAssistRoutes(
  server: FastifyInstance,
  assist: AssistService,
  terminals: TerminalService,
  ctx: ServerContext,
) {
  await server.register(assistRoutes, { assist });
  await server.register(assistSockets, {
    assist,
    terminals,
    guard: ctx.guard,
    clusterName: ctx.config.clusterName,
    pingIntervalMs: ctx.pingIntervalMs,
  });
}
