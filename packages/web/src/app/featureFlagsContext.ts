import { createContext, useContext } from 'react';
import type { FeatureFlags } from './featureFlags';

/** Provided by the private shell once the session (and, later, the user context) is known. */
export const FeatureFlagsContext = createContext<FeatureFlags | null>(null);

export function useFeatureFlags(): FeatureFlags {
  const flags = useContext(FeatureFlagsContext);
  if (!flags) throw new Error('useFeatureFlags needs a FeatureFlagsContext provider');
  return flags;
}
