import type {
  ClusterPreferences,
  UpdateUserPreferences,
  UserPreferences,
} from '@postern/contracts';
import { resolveClusterId } from '../../cluster-context.js';
import type { UserPreferencesStore } from './user-preferences.store.js';

/**
 * A user's own preferences. The rule beyond storage: pins are kept for the cluster this proxy
 * serves (a leaf cluster's lists are answered by the leaf, which could not read pins kept here),
 * so any other cluster is "not found", as its resource lists are.
 */
export class UserPreferencesService {
  constructor(
    private readonly store: UserPreferencesStore,
    private readonly clusterName: string,
  ) {}

  get(user: string): Promise<UserPreferences> {
    return this.store.get(user);
  }

  update(user: string, change: UpdateUserPreferences): Promise<UserPreferences> {
    return this.store.update(user, change);
  }

  cluster(user: string, clusterId: string): Promise<ClusterPreferences> {
    return this.store.cluster(user, resolveClusterId(clusterId, this.clusterName));
  }

  async putCluster(
    user: string,
    clusterId: string,
    preferences: ClusterPreferences,
  ): Promise<ClusterPreferences> {
    await this.store.putCluster(user, resolveClusterId(clusterId, this.clusterName), preferences);
    return preferences;
  }

  /** The ids the user pinned on a cluster this proxy serves. */
  async pinnedOf(user: string, clusterId: string): Promise<string[]> {
    return (await this.cluster(user, clusterId)).pinnedResources.resourceIds;
  }
}
