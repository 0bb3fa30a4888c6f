import { Group } from '@mantine/core';
import { useState, type ReactNode } from 'react';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { useUserContext } from '../../app/userContext';
import type { ListOptions } from '../../components/resourceList/listFilters';
import { AddToRequestButton, CartButton, SearchAsRolesSwitch } from './RequestCart';
import { useResourceCart, type CartItem } from './resourceCart';

/** What a resource page hands its list so the user may ask for access to the rows. */
export interface ResourceRequest<Row> {
  /** How to ask for the list: as the requestable (search-as) roles see it, while that is on. */
  listOptions: ListOptions;
  /** The row's "Add to request" (the list's `extraRowAction`); none without accessRequests create. */
  extraRowAction: ((row: Row) => ReactNode) | undefined;
  /** The search-as switch and the cart's "Request access (N)", beside the page heading. */
  headerActions: ReactNode;
}

/**
 * Access requests for specific resources (docs/access-requests.md), the same on every resource
 * page (servers, apps, databases, Kubernetes clusters, desktops): a user who may create requests
 * puts rows in the request cart and sees how many wait there; with search-as roles, a switch lists
 * the resources those roles would see. `cartItemOf` says what a row is as a requested resource.
 */
export function useResourceRequest<Row>(cartItemOf: (row: Row) => CartItem): ResourceRequest<Row> {
  const flags = useFeatureFlags();
  const { allowedSearchAsRoles } = useUserContext();
  const canRequest = flags.newAccessRequest;
  const canSearchAs = canRequest && allowedSearchAsRoles.length > 0;
  const [searchAsRoles, setSearchAsRoles] = useState(false);
  const { cart, items } = useResourceCart();
  return {
    listOptions: { searchAsRoles: canSearchAs && searchAsRoles },
    extraRowAction: canRequest
      ? (row) => <AddToRequestButton item={cartItemOf(row)} cart={cart} />
      : undefined,
    headerActions: canRequest && (
      <Group gap="md">
        {canSearchAs && <SearchAsRolesSwitch checked={searchAsRoles} onChange={setSearchAsRoles} />}
        <CartButton count={items.length} />
      </Group>
    ),
  };
}
