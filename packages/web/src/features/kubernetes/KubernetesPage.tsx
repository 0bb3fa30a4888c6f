import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { useResourceRequest } from '../accessRequests/useResourceRequest';
import { ExecInBrowser } from './ExecInBrowser';
import { KubernetesView } from './KubernetesView';
import type { KubeCluster } from './makeKubeCluster';
import { useKubeClusters, useUrlKubeClusterFilters } from './useKubernetes';

/** `/web/cluster/:clusterId/kubernetes`, whose clusters can be put in the access request cart. */
export function KubernetesPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filters, setFilters] = useUrlKubeClusterFilters();
  const request = useResourceRequest((cluster: KubeCluster) => ({
    kind: 'kube_cluster',
    clusterName: clusterId,
    name: cluster.name,
    title: cluster.name,
  }));
  const { listProps } = useKubeClusters(clusterId, filters, request.listOptions);
  return (
    <KubernetesView
      {...listProps}
      filters={filters}
      onFiltersChange={setFilters}
      extraRowAction={request.extraRowAction}
      headerActions={request.headerActions}
      renderExec={(cluster) => <ExecInBrowser clusterId={clusterId} kubeCluster={cluster.name} />}
      leaf={clusterId === proxyCluster ? undefined : clusterId}
    />
  );
}
