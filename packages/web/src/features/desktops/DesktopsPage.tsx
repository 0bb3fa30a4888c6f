import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { ConnectDesktop } from './ConnectDesktop';
import { DesktopsView } from './DesktopsView';
import { useDesktops, useUrlDesktopFilters } from './useDesktops';

/** `/web/cluster/:clusterId/desktops`: connecting opens the session page in a new browser tab. */
export function DesktopsPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filters, setFilters] = useUrlDesktopFilters();
  const { listProps } = useDesktops(clusterId, filters);
  return (
    <DesktopsView
      {...listProps}
      filters={filters}
      onFiltersChange={setFilters}
      renderConnect={(desktop) => <ConnectDesktop clusterId={clusterId} desktop={desktop} />}
    />
  );
}
