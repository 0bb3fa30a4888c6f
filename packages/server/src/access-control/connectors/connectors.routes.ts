import {
  connectorContentRequestSchema,
  connectorKinds,
  connectorPaths,
  okBody,
  type ConnectorItem,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import { connectorItem, type ConnectorsService } from './connectors.service.js';

type NameParams = { Params: { name: string } };

/** Auth connectors (spec §7 `github/{name?}`, and the same for `oidc` and `saml`): YAML. */
export async function connectorsRoutes(
  app: FastifyInstance,
  { connectors }: { connectors: ConnectorsService },
) {
  for (const kind of connectorKinds) {
    const list = connectorPaths.list(kind);
    const item = `${list}/:name`;

    app.get(
      list,
      { config: { access: { area: 'authConnectors', verb: 'list' } } },
      async (request): Promise<ConnectorItem[]> =>
        (await connectors.list(kind, actorOf(request))).map(connectorItem),
    );

    app.post(
      list,
      { config: { access: { area: 'authConnectors', verb: 'create' } } },
      async (request): Promise<ConnectorItem> => {
        const { content } = parseInput(connectorContentRequestSchema, request.body);
        return connectorItem(await connectors.create(kind, content, actorOf(request)));
      },
    );

    app.put<NameParams>(
      item,
      { config: { access: { area: 'authConnectors', verb: 'edit' } } },
      async (request): Promise<ConnectorItem> => {
        const { content } = parseInput(connectorContentRequestSchema, request.body);
        const { name } = request.params;
        return connectorItem(await connectors.update(kind, name, content, actorOf(request)));
      },
    );

    app.delete<NameParams>(
      item,
      { config: { access: { area: 'authConnectors', verb: 'remove' } } },
      async (request) => {
        await connectors.remove(kind, request.params.name, actorOf(request));
        return okBody;
      },
    );
  }
}
