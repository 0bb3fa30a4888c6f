import { apiPaths, clusterListSchema } from '@postern/contracts';
import { useQuery } from '@tanstack/react-query';
import { api, decode } from '../../api';
import { makeClusters, type Cluster } from './makeCluster';

export const clustersQueryKey = ['clusters'] as const;

export async function fetchClusters(signal?: AbortSignal): Promise<Cluster[]> {
  const json = await api.get(apiPaths.sites, { signal });
  return makeClusters(decode(clusterListSchema, json, apiPaths.sites));
}

/** `GET /v1/webapi/sites`: the root cluster and its leaf clusters. */
export function useClusters() {
  return useQuery({ queryKey: clustersQueryKey, queryFn: ({ signal }) => fetchClusters(signal) });
}
