import { Group } from '@mantine/core';
import { useState } from 'react';
import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { routePath } from '../../app/routes';
import { useUserContext } from '../../app/userContext';
import { AddToRequestButton, CartButton, SearchAsRolesSwitch } from '../accessRequests/RequestCart';
import { useResourceCart } from '../accessRequests/resourceCart';
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

/**
 * `/web/cluster/:clusterId/nodes`: connecting opens the console in a new browser tab. A user who
 * may request access can put servers in the request cart, and, with search-as roles, list the
 * servers those roles would see.
 */
export function NodesPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filters, setFilters] = useUrlNodeFilters();
  const flags = useFeatureFlags();
  const { allowedSearchAsRoles } = useUserContext();
  const canRequest = flags.newAccessRequest;
  const canSearchAs = canRequest && allowedSearchAsRoles.length > 0;
  const [searchAsRoles, setSearchAsRoles] = useState(false);
  const { cart, items } = useResourceCart();
  const { listProps } = useNodes(clusterId, filters, {
    searchAsRoles: canSearchAs && searchAsRoles,
  });
  const loginsHelp = useLoginsHelp();
  const cartItem = (node: ServerNode) => ({
    kind: 'node' as const,
    clusterName: node.clusterId,
    name: node.id,
    title: node.hostname,
  });
  return (
    <NodesView
      {...listProps}
      filters={filters}
      onFiltersChange={setFilters}
      connect={(node, login) => ({
        label: login,
        href: routePath('consoleConnect', { clusterId, serverId: node.id, login }),
        newTab: true,
      })}
      loginsHelp={loginsHelp}
      proxy={proxyAddressOf(window.location)}
      extraAction={
        canRequest ? (node) => <AddToRequestButton item={cartItem(node)} cart={cart} /> : undefined
      }
      headerActions={
        canRequest && (
          <Group gap="md">
            {canSearchAs && (
              <SearchAsRolesSwitch checked={searchAsRoles} onChange={setSearchAsRoles} />
            )}
            <CartButton count={items.length} />
          </Group>
        )
      }
    />
  );
}
