import { useParams, useSearchParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import { AppLauncherView } from './AppLauncherView';
import { useAppLauncher } from './useAppLauncher';

/** `/web/launch/:fqdn/:clusterId?/:publicAddr?/:arn?[?path=]`: opens an app in this tab. */
export function AppLauncherPage() {
  const { proxyCluster } = useClientConfig();
  const { fqdn = '', clusterId, publicAddr, arn } = useParams();
  // An app's host sends a visitor without a session here with where they were going.
  const path = useSearchParams()[0].get('path') ?? undefined;
  const state = useAppLauncher({ fqdn, clusterId, publicAddr, arn, path });
  return (
    <AppLauncherView
      fqdn={fqdn}
      state={state}
      appsHref={routePath('clusterApps', { clusterId: clusterId || proxyCluster })}
    />
  );
}
