import { kubeClusterSortFields } from '@postern/contracts';
import { useQuery } from '@tanstack/react-query';
import type { ListOptions } from '../../components/resourceList/listFilters';
import { useResourceList, useUrlListFilters } from '../../components/resourceList/useResourceList';
import { attemptOf } from '../../lib/attempt';
import {
  fetchKubeClusters,
  fetchKubeResources,
  kubeClustersPageSize,
  type KubeClusterListRequest,
} from './kubernetesApi';
import type { KubeClusterFilters } from './makeKubeCluster';

export const kubeClustersQueryKey = (
  clusterId: string,
  request: KubeClusterListRequest,
  options: ListOptions = {},
) => ['kubernetes', clusterId, request, options] as const;

/** One page of the Kubernetes cluster list, with cursor paging over it. */
export function useKubeClusters(
  clusterId: string,
  filters: KubeClusterFilters,
  options: ListOptions = {},
) {
  return useResourceList(
    {
      queryKey: (request) => kubeClustersQueryKey(clusterId, request, options),
      fetchPage: (request, signal) => fetchKubeClusters(clusterId, request, signal, options),
      pageSize: kubeClustersPageSize,
    },
    filters,
  );
}

/** The list's filters kept in the page's URL (`?search=&query=&sort=`). */
export function useUrlKubeClusterFilters(): [
  KubeClusterFilters,
  (filters: KubeClusterFilters) => void,
] {
  return useUrlListFilters(kubeClusterSortFields);
}

/** The namespaces of a Kubernetes cluster the user may see, for Exec in browser's picker. */
export function useKubeNamespaces(clusterId: string, kubeCluster: string) {
  const query = useQuery({
    queryKey: ['kubernetes', clusterId, kubeCluster, 'namespaces'],
    queryFn: ({ signal }) =>
      fetchKubeResources(clusterId, kubeCluster, { kind: 'namespace' }, signal),
  });
  return attemptOf(query);
}

/** The pods of one namespace the user may see; nothing is asked until a namespace is chosen. */
export function useKubePods(clusterId: string, kubeCluster: string, namespace: string) {
  const query = useQuery({
    queryKey: ['kubernetes', clusterId, kubeCluster, 'pods', namespace],
    queryFn: ({ signal }) =>
      fetchKubeResources(clusterId, kubeCluster, { kind: 'pod', namespace }, signal),
    enabled: namespace !== '',
  });
  return namespace === '' ? undefined : attemptOf(query);
}
