import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { ExecInBrowser } from './ExecInBrowser';
import { KubernetesView } from './KubernetesView';
import { useKubeClusters, useUrlKubeClusterFilters } from './useKubernetes';

/** `/web/cluster/:clusterId/kubernetes`. */
export function KubernetesPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filters, setFilters] = useUrlKubeClusterFilters();
  const { listProps } = useKubeClusters(clusterId, filters);
  return (
    <KubernetesView
      {...listProps}
      filters={filters}
      onFiltersChange={setFilters}
      renderExec={(cluster) => <ExecInBrowser clusterId={clusterId} kubeCluster={cluster.name} />}
    />
  );
}
