import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import { proxyAddressOf } from '../nodes/NodesPage';
import { DiscoverView } from './DiscoverView';
import { useEnroll } from './useEnroll';

/** `/web/discover`: Enroll New Resource, for users who may create join tokens (spec §6). */
export function DiscoverPage() {
  const { proxyCluster } = useClientConfig();
  const enrollment = useEnroll(proxyAddressOf(window.location));
  return (
    <DiscoverView
      enrollment={enrollment}
      listHref={(kind, name) =>
        routePath(kind.listRoute, { clusterId: proxyCluster }, { search: name })
      }
    />
  );
}
