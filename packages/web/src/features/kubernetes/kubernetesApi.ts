import {
  apiPaths,
  kubeClusterListResponseSchema,
  kubeResourcesResponseSchema,
  resourcePageSize,
  type KubeResourceItem,
} from '@postern/contracts';
import { api, decode } from '../../api';
import {
  listQueryString,
  type ListOptions,
  type ListPageRequest,
} from '../../components/resourceList/listFilters';
import { makeKubeCluster, type KubeClusterFilters, type KubeClusterPage } from './makeKubeCluster';

export const kubeClustersPageSize = resourcePageSize;

export type KubeClusterListRequest = ListPageRequest<KubeClusterFilters>;

/** One page of Kubernetes clusters, searched, filtered and sorted by the server. */
export async function fetchKubeClusters(
  clusterId: string,
  request: KubeClusterListRequest,
  signal?: AbortSignal,
  options: ListOptions = {},
): Promise<KubeClusterPage> {
  const query = listQueryString(request, kubeClustersPageSize, options);
  const url = `${apiPaths.kubernetes(clusterId)}?${query}`;
  const page = decode(kubeClusterListResponseSchema, await api.get(url, { signal }), url);
  return {
    clusters: page.items.map(makeKubeCluster),
    startKey: page.startKey,
    totalCount: page.totalCount,
  };
}

/** What Exec in browser's picker asks for: the namespaces, or the pods of one. */
export type KubeResourcesRequest = { kind: 'namespace' } | { kind: 'pod'; namespace: string };

/**
 * Namespaces, or the pods of one namespace, of a Kubernetes cluster, as the user's roles and the
 * cluster let them see them (`GET …/kubernetes/{name}/resources`).
 */
export async function fetchKubeResources(
  clusterId: string,
  kubeCluster: string,
  request: KubeResourcesRequest,
  signal?: AbortSignal,
): Promise<KubeResourceItem[]> {
  const query = new URLSearchParams({ kind: request.kind });
  if (request.kind === 'pod') query.set('kubeNamespace', request.namespace);
  const url = `${apiPaths.kubeResources(clusterId, kubeCluster)}?${query.toString()}`;
  return decode(kubeResourcesResponseSchema, await api.get(url, { signal }), url).items;
}
