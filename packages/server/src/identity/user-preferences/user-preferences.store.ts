import {
  clusterPreferencesSchema,
  defaultClusterPreferences,
  defaultUserPreferences,
  userPreferencesSchema,
  type ClusterPreferences,
  type UpdateUserPreferences,
  type UserPreferences,
} from '@postern/contracts';
import { deleteIfPresent, retryOnConflict, type Backend } from '../../backend/index.js';

const prefix = '/user_preferences';
const userKey = (user: string) => `${prefix}/${user}`;
const clusterKey = (user: string, clusterId: string) => `${prefix}/${user}/clusters/${clusterId}`;

/**
 * Each user's console preferences (`/user_preferences/<user>`) and, per cluster, the resources
 * they pinned there (`/user_preferences/<user>/clusters/<cluster>`). A user who never chose
 * anything reads the defaults; nothing is written until they do.
 */
export class UserPreferencesStore {
  constructor(private readonly backend: Backend) {}

  async get(user: string): Promise<UserPreferences> {
    const item = await this.backend.get(userKey(user));
    return item ? withDefaults(item.value) : defaultUserPreferences;
  }

  /**
   * Replaces the parts given; the rest keep their values. Answers the whole result. Written over
   * the revision read, so two changes at once (two tabs) both stand.
   */
  async update(user: string, change: UpdateUserPreferences): Promise<UserPreferences> {
    return retryOnConflict(async () => {
      const key = userKey(user);
      const item = await this.backend.get(key);
      const current = item ? withDefaults(item.value) : defaultUserPreferences;
      const next: UserPreferences = {
        unifiedResourcePreferences: {
          ...current.unifiedResourcePreferences,
          ...change.unifiedResourcePreferences,
        },
      };
      const value = JSON.stringify(next);
      if (item) await this.backend.update({ key, value }, item.revision);
      else await this.backend.create({ key, value });
      return next;
    });
  }

  async cluster(user: string, clusterId: string): Promise<ClusterPreferences> {
    const item = await this.backend.get(clusterKey(user, clusterId));
    if (!item) return defaultClusterPreferences;
    return clusterPreferencesSchema.parse(JSON.parse(item.value));
  }

  async putCluster(user: string, clusterId: string, preferences: ClusterPreferences) {
    await this.backend.upsert({
      key: clusterKey(user, clusterId),
      value: JSON.stringify(preferences),
    });
  }

  /** Deleting a user deletes what they chose, so a new user of the same name starts afresh. */
  async forget(user: string): Promise<void> {
    await this.backend.deleteRange(`${userKey(user)}/`);
    await deleteIfPresent(this.backend, userKey(user));
  }
}

/** Parsed over the defaults, so a preference added later reads its default from older records. */
function withDefaults(value: string): UserPreferences {
  const stored = JSON.parse(value) as Partial<UserPreferences>;
  return userPreferencesSchema.parse({
    unifiedResourcePreferences: {
      ...defaultUserPreferences.unifiedResourcePreferences,
      ...stored.unifiedResourcePreferences,
    },
  });
}
