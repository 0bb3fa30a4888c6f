import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { AppsView } from './AppsView';
import { useApps, useUrlAppFilters } from './useApps';

/** `/web/cluster/:clusterId/apps`: launching an app opens it in a new browser tab. */
export function AppsPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filters, setFilters] = useUrlAppFilters();
  const { listProps } = useApps(clusterId, filters);
  return (
    <AppsView
      {...listProps}
      filters={filters}
      onFiltersChange={setFilters}
      proxyHost={window.location.hostname}
    />
  );
}
