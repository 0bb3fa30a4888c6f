import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { useResourceRequest } from '../accessRequests/useResourceRequest';
import { DatabasesView } from './DatabasesView';
import type { Database } from './makeDatabase';
import { useDatabases, useUrlDatabaseFilters } from './useDatabases';

/** `/web/cluster/:clusterId/databases`, whose databases can be put in the access request cart. */
export function DatabasesPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filters, setFilters] = useUrlDatabaseFilters();
  const request = useResourceRequest((db: Database) => ({
    kind: 'db',
    clusterName: clusterId,
    name: db.name,
    title: db.name,
  }));
  const { listProps } = useDatabases(clusterId, filters, request.listOptions);
  return (
    <DatabasesView
      {...listProps}
      clusterId={clusterId}
      leaf={clusterId === proxyCluster ? undefined : clusterId}
      filters={filters}
      onFiltersChange={setFilters}
      extraRowAction={request.extraRowAction}
      headerActions={request.headerActions}
    />
  );
}
