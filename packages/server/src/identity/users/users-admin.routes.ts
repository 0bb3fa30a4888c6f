import {
  apiPaths,
  okBody,
  userUpsertRequestSchema,
  type MfaDevice,
  type UserJson,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import type { UsersAdminService } from './users-admin.service.js';

type UserParams = { Params: { username: string } };

/**
 * Manage Users (spec §7 `/users`, `users/{username}`; reference §1.8). `users/password/...` lives
 * under the same prefix; its segments are static, which find-my-way prefers to `:username`.
 */
export async function usersAdminRoutes(
  app: FastifyInstance,
  { usersAdmin }: { usersAdmin: UsersAdminService },
) {
  app.get(
    apiPaths.users,
    { config: { access: { area: 'users', verb: 'list' } } },
    async (request): Promise<UserJson[]> => usersAdmin.list(actorOf(request)),
  );

  app.get<UserParams>(
    apiPaths.patterns.user,
    { config: { access: { area: 'users', verb: 'read' } } },
    async (request): Promise<UserJson> => usersAdmin.get(request.params.username, actorOf(request)),
  );

  // What an admin needs to lock one device (Create New Lock): never a secret.
  app.get<UserParams>(
    apiPaths.patterns.userMfaDevices,
    { config: { access: { area: 'users', verb: 'read' } } },
    async (request): Promise<MfaDevice[]> =>
      usersAdmin.devices(request.params.username, actorOf(request)),
  );

  // Creates the user without a password; the console then asks for an invite link.
  app.post(
    apiPaths.users,
    { config: { access: { area: 'users', verb: 'create' } } },
    async (request): Promise<UserJson> =>
      usersAdmin.create(parseInput(userUpsertRequestSchema, request.body), actorOf(request)),
  );

  app.put(
    apiPaths.users,
    { config: { access: { area: 'users', verb: 'edit' } } },
    async (request): Promise<UserJson> =>
      usersAdmin.update(parseInput(userUpsertRequestSchema, request.body), actorOf(request)),
  );

  app.delete<UserParams>(
    apiPaths.patterns.user,
    { config: { access: { area: 'users', verb: 'remove' } } },
    async (request) => {
      await usersAdmin.remove(request.params.username, actorOf(request));
      return okBody;
    },
  );
}
