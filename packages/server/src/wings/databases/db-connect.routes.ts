import type {} from '@fastify/websocket';
import { apiPaths, databaseListQuerySchema, type DatabaseListResponse } from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { accessDenied, badParameter, notFound } from '../../errors.js';
import { parseInput } from '../../http/parse-input.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import { databaseJson } from './databases.routes.js';
import type { DatabasesService } from './databases.service.js';
import type { DatabaseRecord } from './db-kind.js';

/** Serves one client connection to a database of the engine's protocol. */
export type DatabaseEngine = (connection: DatabaseConnection) => Promise<void>;

export interface DatabaseConnection {
  stream: Duplex;
  user: string;
  roleSet: RoleSet;
  db: DatabaseRecord;
  remoteAddr?: string;
}

interface DbConnectOptions {
  databases: DatabasesService;
  certAuth: Pick<CertRequestAuth, 'identify'>;
  engines: Partial<Record<string, DatabaseEngine>>;
}

interface Authorized {
  user: string;
  roleSet: RoleSet;
  db: DatabaseRecord;
}

declare module 'fastify' {
  interface FastifyRequest {
    databaseConnection?: Authorized;
  }
}

type NameParams = { Params: { name: string } };

/**
 * `postern proxy db NAME` and `postern db connect` open one WebSocket per client connection here,
 * signed with the user's certificate from `postern login`. The signature and the database's
 * labels are checked before the upgrade (401/404 as HTTP answers); the database user and name
 * come in the client's own startup message, which the protocol's engine checks before a byte
 * reaches the database.
 */
export async function dbConnectRoutes(server: FastifyInstance, options: DbConnectOptions) {
  const { databases, certAuth, engines } = options;

  const authorize = async (request: FastifyRequest<NameParams>) => {
    const identity = certAuth.identify(request);
    const db = databases.get(request.params.name);
    if (!db || !identity.roleSet.canAccess('db', { labels: db.metadata.labels })) {
      throw notFound(`no database named ${request.params.name}`);
    }
    if (!engines[db.spec.protocol]) {
      throw badParameter(`Postern does not speak ${db.spec.protocol} yet`);
    }
    request.databaseConnection = { user: identity.user, roleSet: identity.roleSet, db };
  };

  // Public for the guard: the request is authenticated by its certificate signature instead.
  server.get(apiPaths.databaseCatalog, { config: { access: 'public' } }, async (request) => {
    const { acl, roleSet } = certAuth.identify(request);
    if (!acl.dbServers.list) throw accessDenied('access denied: list on dbServers is not allowed');
    const query = parseInput(databaseListQuerySchema, request.query);
    const page = databases.list(query, roleSet);
    return {
      items: page.rows.map((row) => databaseJson(row, roleSet)),
      startKey: page.startKey,
      totalCount: page.totalCount,
    } satisfies DatabaseListResponse;
  });

  server.get<NameParams>(
    apiPaths.patterns.databaseConnect,
    // The certificate is the credential: no web session, so the guard lets it through and the
    // check runs here, before the upgrade.
    { websocket: true, config: { access: 'public' }, preValidation: authorize },
    (socket: WebSocket, request) => {
      const authorized = request.databaseConnection;
      if (!authorized) return socket.close(1011, 'not authorized');
      const stream = createWebSocketStream(socket);
      stream.on('error', () => undefined);
      void engines[authorized.db.spec.protocol]!({
        ...authorized,
        stream,
        remoteAddr: request.ip,
      });
    },
  );
}
