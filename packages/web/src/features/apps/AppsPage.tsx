import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { useResourceRequest } from '../accessRequests/useResourceRequest';
import type { App } from './makeApp';
import { AppsView } from './AppsView';
import { useApps, useUrlAppFilters } from './useApps';

/**
 * `/web/cluster/:clusterId/apps`: launching an app opens it in a new browser tab. Apps can be put
 * in the access request cart, as on every resource page.
 */
export function AppsPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filters, setFilters] = useUrlAppFilters();
  const request = useResourceRequest((app: App) => ({
    kind: 'app',
    clusterName: app.clusterId,
    name: app.name,
    title: app.friendlyName,
  }));
  const { listProps } = useApps(clusterId, filters, request.listOptions);
  return (
    <AppsView
      {...listProps}
      filters={filters}
      onFiltersChange={setFilters}
      proxyHost={window.location.hostname}
      leaf={clusterId === proxyCluster ? undefined : clusterId}
      extraRowAction={request.extraRowAction}
      headerActions={request.headerActions}
    />
  );
}
