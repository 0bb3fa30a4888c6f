import {
  apiPaths,
  clusterPreferencesSchema,
  userPreferencesSchema,
  type UpdateUserPreferences,
  type UserPreferences,
} from '@postern/contracts';
import { api, decode } from '../../api';

/** The user's own preferences, kept on the server (docs/resources.md). */

export async function fetchUserPreferences(signal?: AbortSignal): Promise<UserPreferences> {
  const url = apiPaths.userPreferences;
  return decode(userPreferencesSchema, await api.get(url, { signal }), url);
}

/** Saves the parts named; the answer is the whole. */
export async function saveUserPreferences(change: UpdateUserPreferences): Promise<UserPreferences> {
  const url = apiPaths.userPreferences;
  return decode(userPreferencesSchema, await api.put(url, change), url);
}

/** The ids of the resources the user pinned on a cluster (`kind/name`). */
export async function fetchPinnedResources(
  clusterId: string,
  signal?: AbortSignal,
): Promise<string[]> {
  const url = apiPaths.userClusterPreferences(clusterId);
  return decode(clusterPreferencesSchema, await api.get(url, { signal }), url).pinnedResources
    .resourceIds;
}

/** Replaces the cluster's pins with `resourceIds`. */
export async function savePinnedResources(clusterId: string, resourceIds: string[]) {
  const url = apiPaths.userClusterPreferences(clusterId);
  await api.put(url, { pinnedResources: { resourceIds } });
}
