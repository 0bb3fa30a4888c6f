import {
  apiPaths,
  botJsonSchema,
  botListResponseSchema,
  createBotResponseSchema,
  issuedBotTokenSchema,
  resourceListMaxLimit,
  resourcePageSize,
  type BotJson,
  type CreateBotRequest,
  type CreateBotResponse,
  type IssuedBotToken,
  type UpdateBotRequest,
} from '@postern/contracts';
import { api, decode } from '../../api';
import type { ResourcePage } from '../../components/resourceList/ResourceList';
import { listQueryString, type ListPageRequest } from '../../components/resourceList/listFilters';

/** Manage Bots calls (docs/bots.md), at the reference's `machine-id/bot` paths. */

/** One page of bots, searched on the server (the same query shape as every resource list). */
export async function fetchBots(
  clusterId: string,
  request: ListPageRequest,
  signal?: AbortSignal,
): Promise<ResourcePage<BotJson>> {
  const url = `${apiPaths.bots(clusterId)}?${listQueryString(request, resourcePageSize)}`;
  return decode(botListResponseSchema, await api.get(url, { signal }), url);
}

/** One running copy of a bot, and which bot. */
export interface RunningCopy {
  bot: string;
  instance: BotJson['instances'][number];
}

/** Every running copy of the bots a first full page lists (Create New Lock's choices). */
export async function fetchBotInstances(
  clusterId: string,
  signal?: AbortSignal,
): Promise<RunningCopy[]> {
  const url = `${apiPaths.bots(clusterId)}?limit=${resourceListMaxLimit}`;
  const page = decode(botListResponseSchema, await api.get(url, { signal }), url);
  return page.items.flatMap((bot) =>
    bot.instances.map((instance) => ({ bot: bot.name, instance })),
  );
}

export async function createBot(
  clusterId: string,
  request: CreateBotRequest,
): Promise<CreateBotResponse> {
  const url = apiPaths.bots(clusterId);
  return decode(createBotResponseSchema, await api.post(url, request), url);
}

export async function updateBot(
  clusterId: string,
  name: string,
  request: UpdateBotRequest,
): Promise<BotJson> {
  const url = apiPaths.bot(clusterId, name);
  return decode(botJsonSchema, await api.put(url, request), url);
}

export async function newBotToken(
  clusterId: string,
  name: string,
  tokenTtl: string,
): Promise<IssuedBotToken> {
  const url = apiPaths.botToken(clusterId, name);
  const body = tokenTtl ? { token_ttl: tokenTtl } : {};
  return decode(issuedBotTokenSchema, await api.post(url, body), url);
}

export async function deleteBot(clusterId: string, name: string): Promise<void> {
  await api.delete(apiPaths.bot(clusterId, name));
}
