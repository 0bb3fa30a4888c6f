import {
  apiPaths,
  createDatabaseRequestSchema,
  databaseListQuerySchema,
  databaseServiceListQuerySchema,
  signDatabaseCertRequestSchema,
  updateDatabaseRequestSchema,
  type DatabaseIamPolicyResponse,
  type DatabaseJson,
  type DatabaseListResponse,
  type DatabaseServiceListResponse,
  type SignDatabaseCertResponse,
} from '@postern/contracts';
import type { ListContext } from '../../http/resource-listers.js';
import { resourceListRoute } from '../../http/resource-list-route.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { resolveClusterId } from '../../cluster-context.js';
import { notFound } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import { actorOf } from '../../http/request-identity.js';
import type { DatabaseRow, DatabasesService } from './databases.service.js';
import type { DatabaseServerCerts } from './db-server-certs.service.js';
import { databaseAddress } from './db-kind.js';

interface DatabasesRoutesOptions extends ListContext {
  databases: DatabasesService;
  serverCerts: DatabaseServerCerts;
  /** The name the proxy goes by as a database service: its public host name. */
  proxyServiceName: () => string;
}

type ClusterParams = { Params: { clusterId: string } };
type DatabaseParams = { Params: { clusterId: string; database: string } };

/**
 * Databases (spec §7): the list and one database as the caller's roles let them see it, the
 * database services, databases made and changed through the API, the IAM policy call and
 * server certificates for databases (docs/databases.md, "The web API").
 */
export async function databasesRoutes(app: FastifyInstance, options: DatabasesRoutesOptions) {
  const { databases, serverCerts, clusterName, proxyServiceName } = options;

  resourceListRoute(app, options, {
    path: apiPaths.patterns.databases,
    signedPath: apiPaths.databaseCatalog,
    area: 'dbServers',
    resourceType: 'db',
    query: databaseListQuerySchema,
    list: (query, viewer) => databases.list(query, viewer),
    json: (row, viewer): DatabaseListResponse['items'][number] => databaseJson(row, viewer),
  });

  app.get<DatabaseParams>(
    apiPaths.patterns.database,
    { config: { access: { area: 'dbServers', verb: 'read' } } },
    async (request): Promise<DatabaseJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const roleSet = actorOf(request).roleSet;
      return databaseJson(visibleRow(request, roleSet), roleSet);
    },
  );

  // The reference's Discover flow: a database the proxy serves, made from the console. The
  // `db` area is the resource itself (`db` create), as `postern create -f` checks it.
  app.post<ClusterParams>(
    apiPaths.patterns.databases,
    { config: { access: { area: 'db', verb: 'create' } } },
    async (request): Promise<DatabaseJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const body = parseInput(createDatabaseRequestSchema, request.body);
      const actor = actorOf(request);
      const created = await databases.createFromRequest(body, actor);
      return databaseJson(databases.inventory.row(created), actor.roleSet);
    },
  );

  // Only what the caller may see can be changed (404 alike for unknown and hidden ones); the
  // config file's and agents' databases are read-only here (400 saying where to change them).
  app.put<DatabaseParams>(
    apiPaths.patterns.database,
    { config: { access: { area: 'db', verb: 'edit' } } },
    async (request): Promise<DatabaseJson> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const actor = actorOf(request);
      visibleRow(request, actor.roleSet);
      const body = parseInput(updateDatabaseRequestSchema, request.body);
      const updated = await databases.updateFromRequest(request.params.database, body, actor);
      return databaseJson(databases.inventory.row(updated), actor.roleSet);
    },
  );

  // The reference answers an AWS IAM policy for RDS databases. Postern's are self-hosted and
  // reached with certificates: no policy is needed, and the answer says so.
  app.get<DatabaseParams>(
    apiPaths.patterns.databaseIamPolicy,
    { config: { access: { area: 'dbServers', verb: 'read' } } },
    async (request): Promise<DatabaseIamPolicyResponse> => {
      resolveClusterId(request.params.clusterId, clusterName);
      visibleRow(request, actorOf(request).roleSet);
      return { type: 'none', aws: null };
    },
  );

  app.get<ClusterParams>(
    apiPaths.patterns.databaseServices,
    { config: { access: { area: 'dbServers', verb: 'list' } } },
    async (request): Promise<DatabaseServiceListResponse> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const query = parseInput(databaseServiceListQuerySchema, request.query);
      return databases.servicesPage(query, proxyServiceName(), actorOf(request).roleSet);
    },
  );

  // A certificate that makes a database trusted by the proxy: whoever may add database servers
  // may have one. The reference lets only the database service's role sign these (an RBAC
  // impersonation, which the console's areas do not express); `dbServers` `create` is the
  // nearest area: a database server the cluster will trust is what it creates.
  app.post<ClusterParams>(
    apiPaths.patterns.signDatabaseCert,
    { config: { access: { area: 'dbServers', verb: 'create' } } },
    async (request, reply): Promise<SignDatabaseCertResponse> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const body = parseInput(signDatabaseCertRequestSchema, request.body);
      // The answer holds a private key: no cache may keep it.
      reply.header('cache-control', 'no-store');
      return serverCerts.sign(body, actorOf(request), request.ip);
    },
  );

  /** The named database's row if the caller may see it; 404 alike for unknown and hidden ones. */
  function visibleRow(request: FastifyRequest<DatabaseParams>, roleSet: RoleSet | null) {
    const found = databases.visible(request.params.database, roleSet);
    if (!found) throw notFound(`no database named ${request.params.database}`);
    return databases.inventory.row(found);
  }
}

/** A database as the Databases page lists it, with the users and names this caller may use. */
export function databaseJson(row: DatabaseRow, roleSet: RoleSet | null): DatabaseJson {
  const db = row.resource;
  const labels = { labels: row.labels, name: db.metadata.name };
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
