import { unifiedResourceKinds } from '@postern/contracts';
import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { canAddAgents } from '../../app/featureFlags';
import { useFeatureFlags } from '../../app/featureFlagsContext';
import { useUserAcl } from '../../app/userContext';
import { useLoginsHelp } from '../nodes/useLoginsHelp';
import { resourceKinds } from './resourceKinds';
import { ResourceAction } from './ResourceAction';
import { ResourcesView } from './ResourcesView';
import { useResources, useUrlResourceFilters } from './useResources';

/**
 * `/web/cluster/:clusterId/resources`: every kind the user may list, in one list (the reference's
 * default view since its v14). Each row connects as its kind's own page does: in a new browser
 * tab, or with the command to copy.
 */
export function ResourcesPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const flags = useFeatureFlags();
  const acl = useUserAcl();
  const [filters, setFilters] = useUrlResourceFilters();
  const { listProps } = useResources(clusterId, filters);
  const loginsHelp = useLoginsHelp();
  const leaf = clusterId === proxyCluster ? undefined : clusterId;
  return (
    <ResourcesView
      {...listProps}
      filters={filters}
      onFiltersChange={setFilters}
      kinds={unifiedResourceKinds.filter((kind) => flags[resourceKinds[kind].flag])}
      canEnroll={canAddAgents(acl)}
      renderAction={(resource) => (
        <ResourceAction
          resource={resource}
          clusterId={clusterId}
          leaf={leaf}
          loginsHelp={loginsHelp}
        />
      )}
    />
  );
}
