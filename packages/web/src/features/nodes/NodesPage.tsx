import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import type { Choice } from '../../components/ChoiceMenu';
import { useResourceRequest } from '../accessRequests/useResourceRequest';
import type { ServerNode } from './makeNode';
import type { ProxyAddress } from './NodesView';
import { NodesView } from './NodesView';
import { useLoginsHelp } from './useLoginsHelp';
import { useNodes, useUrlNodeFilters } from './useNodes';

/** This proxy's address as the enrolment commands need it. */
export function proxyAddressOf(
  location: Pick<Location, 'protocol' | 'host' | 'hostname' | 'port' | 'origin'>,
): ProxyAddress {
  const port = location.port || (location.protocol === 'https:' ? '443' : '80');
  return { addr: `${location.hostname}:${port}`, origin: location.origin };
}

/** Connecting as a login opens the console on the server in a new browser tab. */
export const connectInNewTab =
  (clusterId: string) =>
  (node: ServerNode, login: string): Choice => ({
    label: login,
    href: routePath('consoleConnect', { clusterId, serverId: node.id, login }),
    newTab: true,
  });

/**
 * `/web/cluster/:clusterId/nodes`: connecting opens the console in a new browser tab. A user who
 * may request access can put servers in the request cart, and, with search-as roles, list the
 * servers those roles would see.
 */
export function NodesPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filters, setFilters] = useUrlNodeFilters();
  const request = useResourceRequest((node: ServerNode) => ({
    kind: 'node',
    clusterName: node.clusterId,
    name: node.id,
    title: node.hostname,
  }));
  const { listProps } = useNodes(clusterId, filters, request.listOptions);
  const loginsHelp = useLoginsHelp();
  return (
    <NodesView
      {...listProps}
      filters={filters}
      onFiltersChange={setFilters}
      connect={connectInNewTab(clusterId)}
      loginsHelp={loginsHelp}
      proxy={proxyAddressOf(window.location)}
      extraRowAction={request.extraRowAction}
      headerActions={request.headerActions}
    />
  );
}
