import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { DatabasesView } from './DatabasesView';
import { useDatabases, useUrlDatabaseFilters } from './useDatabases';

/** `/web/cluster/:clusterId/databases`. */
export function DatabasesPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filters, setFilters] = useUrlDatabaseFilters();
  const { listProps } = useDatabases(clusterId, filters);
  return (
    <DatabasesView
      {...listProps}
      clusterId={clusterId}
      filters={filters}
      onFiltersChange={setFilters}
    />
  );
}
