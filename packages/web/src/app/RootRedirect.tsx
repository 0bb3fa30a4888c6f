import { useMemo } from 'react';
import { Navigate } from 'react-router';
import { useClientConfig } from './clientConfig';
import { features } from './features';
import { useFeatureFlags } from './featureFlagsContext';
import { buildNavigation, landingPath } from './navItems';

/** `/web` lands on the first page the user may open, like the reference console. */
export function RootRedirect() {
  const flags = useFeatureFlags();
  const { proxyCluster } = useClientConfig();
  const target = useMemo(
    () => landingPath(buildNavigation(features, flags, proxyCluster)),
    [flags, proxyCluster],
  );
  return <Navigate to={target} replace />;
}
