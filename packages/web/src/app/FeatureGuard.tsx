import type { ReactNode } from 'react';
import { AccessDenied } from './fallbacks/AccessDenied';
import type { Feature } from './features';
import { useFeatureFlags } from './featureFlagsContext';
import { isAllowed } from './navItems';

/** Spec §4: a page shows only if its ACL-derived flag is true. */
export function FeatureGuard({ feature, children }: { feature: Feature; children: ReactNode }) {
  const flags = useFeatureFlags();
  return isAllowed(feature, flags) ? children : <AccessDenied />;
}
