import {
  apiPaths,
  databaseListQuerySchema,
  type DatabaseJson,
  type DatabaseListResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { resolveClusterId } from '../../cluster-context.js';
import { notFound } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import { actorOf } from '../../http/request-identity.js';
import type { DatabaseRow, DatabasesService } from './databases.service.js';
import { databaseAddress } from './db-kind.js';

interface DatabasesRoutesOptions {
  databases: DatabasesService;
  clusterName: string;
}

type ClusterParams = { Params: { clusterId: string } };
type DatabaseParams = { Params: { clusterId: string; database: string } };

/** Databases (spec §7): the list and one database, as the caller's roles let them see it. */
export async function databasesRoutes(app: FastifyInstance, options: DatabasesRoutesOptions) {
  const { databases, clusterName } = options;

  app.get<ClusterParams>(
    apiPaths.patterns.databases,
    { config: { access: { area: 'dbServers', verb: 'list' } } },
    async (request): Promise<DatabaseListResponse> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const query = parseInput(databaseListQuerySchema, request.query);
      const roleSet = actorOf(request).roleSet;
      const page = databases.list(query, roleSet);
      return {
        items: page.rows.map((row) => databaseJson(row, roleSet)),
        startKey: page.startKey,
        totalCount: page.totalCount,
      };
    },
  );

  app.get<DatabaseParams>(
    apiPaths.patterns.database,
    { config: { access: { area: 'dbServers', verb: 'read' } } },
    async (request): Promise<DatabaseJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const roleSet = actorOf(request).roleSet;
      const row = databases
        .rows()
        .find((candidate) => candidate.resource.metadata.name === request.params.database);
      // Unknown and hidden alike: a 404 does not tell which databases exist.
      if (!row || (roleSet && !roleSet.canAccess('db', { labels: row.labels }))) {
        throw notFound(`no database named ${request.params.database}`);
      }
      return databaseJson(row, roleSet);
    },
  );
}

/** A database as the Databases page lists it, with the users and names this caller may use. */
export function databaseJson(row: DatabaseRow, roleSet: RoleSet | null): DatabaseJson {
  const db = row.resource;
  const labels = { labels: row.labels };
  const allowed = (principals: { values: string[]; any: boolean } | undefined) =>
    principals ? [...(principals.any ? ['*'] : []), ...principals.values] : ['*'];
  return {
    kind: 'db',
    name: db.metadata.name,
    desc: db.metadata.description,
    protocol: db.spec.protocol,
    type: 'self-hosted',
    labels: Object.entries(row.labels)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => ({ name, value })),
    database_names: allowed(roleSet?.dbNamesFor(labels)),
    database_users: allowed(roleSet?.dbUsersFor(labels)),
    hostname: databaseAddress(db).host,
    tunnel: db.source === 'agent',
    status: row.status,
  };
}
