import type { ReactNode } from 'react';
import { useMemo } from 'react';
import { PageLoader } from '../components/PageLoader';
import { useClientConfig } from './clientConfig';
import { InternalError } from './fallbacks/InternalError';
import { deriveFeatureFlags } from './featureFlags';
import { FeatureFlagsContext } from './featureFlagsContext';
import { UserContextContext, useUserContextQuery } from './userContext';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Loads the user context before any private page renders, then provides it and the feature flags
 * derived from its ACL (spec §6). A failed first load shows Internal Error with a retry; a failed
 * refresh later keeps the context already known.
 */
export function UserContextGate({ children }: { children: ReactNode }) {
  const config = useClientConfig();
  const query = useUserContextQuery(config.proxyCluster);
  const context = query.data;
  const flags = useMemo(
    () => (context ? deriveFeatureFlags(context.userAcl, config) : undefined),
    [context, config],
  );

  if (context && flags) {
    return (
      <UserContextContext.Provider value={context}>
        <FeatureFlagsContext.Provider value={flags}>{children}</FeatureFlagsContext.Provider>
      </UserContextContext.Provider>
    );
  }
  if (query.isError) {
    return <InternalError message={messageOf(query.error)} onRetry={() => void query.refetch()} />;
  }
  return <PageLoader label="Loading your permissions" />;
}
