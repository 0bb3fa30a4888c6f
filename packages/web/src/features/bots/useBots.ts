import {
  resourcePageSize,
  type BotJson,
  type CreateBotRequest,
  type CreateBotResponse,
  type IssuedBotToken,
  type UpdateBotRequest,
} from '@postern/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import type { ListFilters } from '../../components/resourceList/listFilters';
import { useResourceList, useUrlListFilters } from '../../components/resourceList/useResourceList';
import { useClientConfig } from '../../app/clientConfig';
import {
  createBot,
  deleteBot,
  fetchBotInstances,
  fetchBots,
  newBotToken,
  updateBot,
} from './botsApi';

const botsKey = ['bots'] as const;

/** Bots sort by name on the server; the search is the only filter. */
const noSortFields: readonly never[] = [];

/** One page of the proxy cluster's bots, searched on the server, with keyset paging over it. */
export function useBots(filters: ListFilters<never>) {
  const { proxyCluster } = useClientConfig();
  return useResourceList(
    {
      queryKey: (request) => [...botsKey, proxyCluster, request.search, request.startKey],
      fetchPage: (request, signal) => fetchBots(proxyCluster, request, signal),
      pageSize: resourcePageSize,
    },
    filters,
  );
}

/** Every bot's running copies, where the viewer may list bots (Create New Lock offers them). */
export function useBotInstances(enabled: boolean) {
  const { proxyCluster } = useClientConfig();
  return useQuery({
    queryKey: [...botsKey, proxyCluster, 'instances'],
    queryFn: ({ signal }) => fetchBotInstances(proxyCluster, signal),
    enabled,
  });
}

/** The search kept in the page's URL (`?search=`), so a view can be shared. */
export function useUrlBotFilters() {
  return useUrlListFilters(noSortFields);
}

export interface BotActions {
  create(request: CreateBotRequest): Promise<CreateBotResponse>;
  update(name: string, request: UpdateBotRequest): Promise<BotJson>;
  newToken(name: string, tokenTtl: string): Promise<IssuedBotToken>;
  remove(name: string): Promise<void>;
}

/** Each change reloads the list: a new bot, new roles, a new unused token, one bot fewer. */
export function useBotActions(): BotActions {
  const { proxyCluster } = useClientConfig();
  const client = useQueryClient();
  return useMemo(() => {
    const reloaded = async <T>(result: T) => {
      await client.invalidateQueries({ queryKey: botsKey });
      return result;
    };
    return {
      create: async (request) => reloaded(await createBot(proxyCluster, request)),
      update: async (name, request) => reloaded(await updateBot(proxyCluster, name, request)),
      newToken: async (name, ttl) => reloaded(await newBotToken(proxyCluster, name, ttl)),
      remove: async (name) => reloaded(await deleteBot(proxyCluster, name)),
    };
  }, [client, proxyCluster]);
}
