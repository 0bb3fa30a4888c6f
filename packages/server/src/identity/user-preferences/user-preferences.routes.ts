import {
  apiPaths,
  clusterPreferencesSchema,
  updateUserPreferencesSchema,
  type ClusterPreferences,
  type UserPreferences,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { parseInput } from '../../http/parse-input.js';
import { actorOf } from '../../http/request-identity.js';
import type { UserPreferencesService } from './user-preferences.service.js';

type ClusterParams = { Params: { clusterId: string } };
const own = { config: { access: 'authenticated' } } as const;

/**
 * The caller's own preferences (reference `/user/preferences`, docs/resources.md): any signed-in
 * user reads and changes theirs, and no one else's, so no ACL verb applies.
 */
export async function userPreferencesRoutes(
  app: FastifyInstance,
  { preferences }: { preferences: UserPreferencesService },
) {
  app.get(apiPaths.userPreferences, own, async (request): Promise<UserPreferences> =>
    preferences.get(actorOf(request).name),
  );

  app.put(apiPaths.userPreferences, own, async (request): Promise<UserPreferences> => {
    const user = actorOf(request).name;
    return preferences.update(user, parseInput(updateUserPreferencesSchema, request.body));
  });

  app.get<ClusterParams>(
    apiPaths.patterns.userClusterPreferences,
    own,
    async (request): Promise<ClusterPreferences> =>
      preferences.cluster(actorOf(request).name, request.params.clusterId),
  );

  app.put<ClusterParams>(
    apiPaths.patterns.userClusterPreferences,
    own,
    async (request): Promise<ClusterPreferences> => {
      const user = actorOf(request).name;
      const chosen = parseInput(clusterPreferencesSchema, request.body);
      return preferences.putCluster(user, request.params.clusterId, chosen);
    },
  );
}
