import { apiPaths, roleContentRequestSchema, type RoleItem } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { okBody } from '@postern/contracts';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import { roleItem, type RolesService } from './roles.service.js';

type NameParams = { Params: { name: string } };

/** Manage Roles (spec §7 `/roles/{name?}`, reference §1.9): YAML in `{content}`. */
export async function rolesRoutes(app: FastifyInstance, { roles }: { roles: RolesService }) {
  app.get(
    apiPaths.roles,
    { config: { access: { area: 'roles', verb: 'list' } } },
    async (request): Promise<RoleItem[]> => (await roles.list(actorOf(request))).map(roleItem),
  );

  app.get<NameParams>(
    apiPaths.patterns.role,
    { config: { access: { area: 'roles', verb: 'read' } } },
    async (request): Promise<RoleItem> =>
      roleItem(await roles.get(request.params.name, actorOf(request))),
  );

  app.post(
    apiPaths.roles,
    { config: { access: { area: 'roles', verb: 'create' } } },
    async (request): Promise<RoleItem> => {
      const { content } = parseInput(roleContentRequestSchema, request.body);
      return roleItem(await roles.create(content, actorOf(request)));
    },
  );

  app.put<NameParams>(
    apiPaths.patterns.role,
    { config: { access: { area: 'roles', verb: 'edit' } } },
    async (request): Promise<RoleItem> => {
      const { content } = parseInput(roleContentRequestSchema, request.body);
      return roleItem(await roles.update(request.params.name, content, actorOf(request)));
    },
  );

  app.delete<NameParams>(
    apiPaths.patterns.role,
    { config: { access: { area: 'roles', verb: 'remove' } } },
    async (request) => {
      await roles.remove(request.params.name, actorOf(request));
      return okBody;
    },
  );
}
