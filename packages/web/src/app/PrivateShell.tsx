import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Outlet } from 'react-router';
import { ApiError } from '../api';
import { useClientConfig } from './clientConfig';
import { deriveFeatureFlags } from './featureFlags';
import { FeatureFlagsContext } from './featureFlagsContext';
import { provisionalAclUntilUserContext } from './provisionalAcl';
import { SessionGate } from './session/SessionGate';

/** Client errors (4xx) will not change on a retry; server and network errors might. */
const retry = (failures: number, error: unknown) =>
  failures < 2 && !(error instanceof ApiError && error.status < 500);

/**
 * Everything private routes share, in its own lazy chunk so the public pages (login) do not
 * download it: the session gate, the data cache and the feature flags.
 */
export default function PrivateShell() {
  const config = useClientConfig();
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { retry, refetchOnWindowFocus: false } } }),
  );
  const flags = useMemo(
    () => deriveFeatureFlags(provisionalAclUntilUserContext(), config),
    [config],
  );
  return (
    <SessionGate>
      <QueryClientProvider client={queryClient}>
        <FeatureFlagsContext.Provider value={flags}>
          <Outlet />
        </FeatureFlagsContext.Provider>
      </QueryClientProvider>
    </SessionGate>
  );
}
