import type { TrustedClusterItem } from '@postern/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import {
  createTrustedCluster,
  deleteTrustedCluster,
  fetchTrustedCluster,
  fetchTrustedClusters,
  updateTrustedCluster,
} from './trustedClustersApi';

export const trustedClustersQueryKey = ['trustedClusters'] as const;

/** How often to ask again while a link is still being set up. */
const connectingPollMs = 5_000;

const anyConnecting = (items: TrustedClusterItem[] | undefined) =>
  items?.some((item) => item.status?.state === 'connecting') ?? false;

/**
 * `GET /trustedcluster`, by name. A new link starts as "connecting" and settles on its own, so
 * the list polls while one is in that state instead of leaving the badge stale until a reload.
 */
export function useTrustedClusters() {
  return useQuery({
    queryKey: trustedClustersQueryKey,
    queryFn: ({ signal }) => fetchTrustedClusters(signal),
    refetchInterval: (query) => (anyConnecting(query.state.data) ? connectingPollMs : false),
  });
}

export interface TrustedClusterActions {
  create(content: string): Promise<void>;
  update(name: string, content: string): Promise<void>;
  remove(name: string): Promise<void>;
  /** The trusted cluster's YAML as stored now (the 409 flow's Reload). */
  latest(name: string): Promise<string>;
}

/** Writes reload the list, so the cards show the state the server reached. */
export function useTrustedClusterActions(): TrustedClusterActions {
  const client = useQueryClient();
  return useMemo(() => {
    const reload = () => client.invalidateQueries({ queryKey: trustedClustersQueryKey });
    return {
      create: async (content) => {
        await createTrustedCluster(content);
        await reload();
      },
      update: async (name, content) => {
        await updateTrustedCluster(name, content);
        await reload();
      },
      remove: async (name) => {
        await deleteTrustedCluster(name);
        await reload();
      },
      latest: async (name) => (await fetchTrustedCluster(name)).content,
    };
  }, [client]);
}
