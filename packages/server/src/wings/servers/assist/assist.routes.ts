import {
  apiPaths,
  assistTitleSummaryRequestSchema,
  okBody,
  setAssistTitleRequestSchema,
  type AssistConversationList,
  type AssistConversationMessages,
} from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseInput } from '../../../http/parse-input.js';
import { actorOf } from '../../../http/request-identity.js';
import type { AssistService } from './assist.service.js';

interface AssistRoutesOptions {
  assist: AssistService;
}

type ConversationParams = { Params: { conversationId: string } };

/** The signed-in caller's name (the guard has checked the session and the verb before). */
const userOf = (request: FastifyRequest) => actorOf(request).name;

/**
 * The assistant's conversations (spec §7 `assistant/…`, docs/assist.md): always the caller's
 * own, so the verb on `assistant` is all a route checks; the service holds the rest.
 */
export async function assistRoutes(app: FastifyInstance, { assist }: AssistRoutesOptions) {
  app.get(
    apiPaths.assistConversations,
    { config: { access: { area: 'assist', verb: 'list' } } },
    async (request): Promise<AssistConversationList> => ({
      conversations: await assist.list(userOf(request)),
    }),
  );

  app.post(
    apiPaths.assistConversations,
    { config: { access: { area: 'assist', verb: 'create' } } },
    async (request) => assist.create(userOf(request)),
  );

  app.get<ConversationParams>(
    apiPaths.patterns.assistConversation,
    { config: { access: { area: 'assist', verb: 'read' } } },
    async (request): Promise<AssistConversationMessages> => ({
      messages: await assist.messages(userOf(request), request.params.conversationId),
    }),
  );

  app.delete<ConversationParams>(
    apiPaths.patterns.assistConversation,
    { config: { access: { area: 'assist', verb: 'remove' } } },
    async (request) => {
      await assist.remove(userOf(request), request.params.conversationId);
      return okBody;
    },
  );

  app.post<ConversationParams>(
    apiPaths.patterns.assistConversationTitle,
    { config: { access: { area: 'assist', verb: 'edit' } } },
    async (request) => {
      const { title } = parseInput(setAssistTitleRequestSchema, request.body);
      await assist.rename(userOf(request), request.params.conversationId, title);
      return okBody;
    },
  );

  app.post(
    apiPaths.assistTitleSummary,
    { config: { access: { area: 'assist', verb: 'create' } } },
    async (request) => {
      const { message } = parseInput(assistTitleSummaryRequestSchema, request.body);
      return { title: await assist.titleFor(userOf(request), message) };
    },
  );
}
