import { createContext, useContext } from 'react';
import type { FeatureFlags } from './featureFlags';

/** Provided by the user-context gate: the flags derived from the signed-in user's ACL. */
export const FeatureFlagsContext = createContext<FeatureFlags | null>(null);

export function useFeatureFlags(): FeatureFlags {
  const flags = useContext(FeatureFlagsContext);
  if (!flags) throw new Error('useFeatureFlags needs a FeatureFlagsContext provider');
  return flags;
}
