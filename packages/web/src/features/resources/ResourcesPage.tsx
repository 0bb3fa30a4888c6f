import { Group } from '@mantine/core';
import { unifiedResourceKinds } from '@postern/contracts';
import { useMemo } from 'react';
import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { canAddAgents } from '../../app/featureFlags';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { useUserAcl, useUserContext } from '../../app/userContext';
import { AddToRequestButton, CartButton } from '../accessRequests/RequestCart';
import { useResourceCart } from '../accessRequests/resourceCart';
import { useLoginsHelp } from '../nodes/useLoginsHelp';
import { withView, type Resource } from './makeResource';
import { resourceKinds } from './resourceKinds';
import { ResourceAction } from './ResourceAction';
import { ResourcesView } from './ResourcesView';
import {
  IncludedModeSelect,
  PinButton,
  RequiresRequestBadge,
  ResourcesTabs,
} from './ResourceViewControls';
import { useResourcePreferences } from './useResourcePreferences';
import { useResources, useUrlResourceFilters } from './useResources';

/**
 * `/web/cluster/:clusterId/resources`: every kind the user may list, in one list (the reference's
 * default view since its v14). Each row connects as its kind's own page does: in a new browser
 * tab, or with the command to copy. Rows can be pinned, and the Pinned tab lists only those; a
 * user with search-as roles may include what they could request, and put it in the request cart.
 * The tab and what is included are the user's preferences, kept on the server.
 */
export function ResourcesPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const flags = useFeatureFlags();
  const acl = useUserAcl();
  const { allowedSearchAsRoles } = useUserContext();
  const leaf = clusterId === proxyCluster ? undefined : clusterId;
  const preferences = useResourcePreferences(clusterId);
  const canRequest = flags.newAccessRequest;
  const canSearchAs = canRequest && allowedSearchAsRoles.length > 0;
  const tab = preferences.view.defaultTab;
  const mode = canSearchAs ? preferences.view.includedResourceMode : 'accessible';

  const [filters, setFilters] = useUrlResourceFilters();
  const listFilters = useMemo(
    () => withView(filters, { pinnedOnly: tab === 'pinned', mode }),
    [filters, tab, mode],
  );
  const { listProps } = useResources(clusterId, listFilters, preferences.settled);
  const loginsHelp = useLoginsHelp();
  const { cart, items: cartItems } = useResourceCart();

  const cartItemOf = (resource: Resource) => ({
    kind: resource.kind,
    clusterName: clusterId,
    name: resource.key,
    title: resource.name,
  });
  return (
    <ResourcesView
      {...listProps}
      filters={filters}
      onFiltersChange={setFilters}
      kinds={unifiedResourceKinds.filter((kind) => flags[resourceKinds[kind].flag])}
      canEnroll={canAddAgents(acl)}
      tab={tab}
      saveError={preferences.saveError}
      headerActions={
        <Group gap="md">
          <ResourcesTabs
            tab={tab}
            onChange={(next) => preferences.changeView({ defaultTab: next })}
          />
          {canSearchAs && (
            <IncludedModeSelect
              mode={mode}
              onChange={(next) => preferences.changeView({ includedResourceMode: next })}
            />
          )}
          {canRequest && <CartButton count={cartItems.length} />}
        </Group>
      }
      renderAction={(resource) =>
        resource.requiresRequest ? (
          <RequiresRequestBadge />
        ) : (
          <ResourceAction
            resource={resource}
            clusterId={clusterId}
            leaf={leaf}
            loginsHelp={loginsHelp}
          />
        )
      }
      extraRowAction={(resource) => (
        <>
          {canRequest && <AddToRequestButton item={cartItemOf(resource)} cart={cart} />}
          <PinButton
            name={resource.name}
            pinned={preferences.pinned.has(resource.id)}
            onToggle={() => preferences.togglePin(resource.id)}
          />
        </>
      )}
    />
  );
}
