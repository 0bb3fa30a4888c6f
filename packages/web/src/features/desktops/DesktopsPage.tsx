import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { useResourceRequest } from '../accessRequests/useResourceRequest';
import { ConnectDesktop } from './ConnectDesktop';
import { DesktopsView } from './DesktopsView';
import type { Desktop } from './makeDesktop';
import { useDesktops, useUrlDesktopFilters } from './useDesktops';

/**
 * `/web/cluster/:clusterId/desktops`: connecting opens the session page in a new browser tab.
 * Desktops can be put in the access request cart, as on every resource page.
 */
export function DesktopsPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filters, setFilters] = useUrlDesktopFilters();
  const request = useResourceRequest((desktop: Desktop) => ({
    kind: 'windows_desktop',
    clusterName: clusterId,
    name: desktop.name,
    title: desktop.name,
  }));
  const { listProps } = useDesktops(clusterId, filters, request.listOptions);
  return (
    <DesktopsView
      {...listProps}
      filters={filters}
      onFiltersChange={setFilters}
      extraRowAction={request.extraRowAction}
      headerActions={request.headerActions}
      renderConnect={(desktop) => <ConnectDesktop clusterId={clusterId} desktop={desktop} />}
    />
  );
}
