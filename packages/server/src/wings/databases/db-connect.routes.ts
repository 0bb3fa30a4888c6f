import { marksOf, type CredentialMarks } from '../../access-control/locks/lock-watcher.js';
import type {} from '@fastify/websocket';
import {
  apiPaths,
  databaseLoginRequestSchema,
  type DatabaseLoginResponse,
} from '@postern/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Duplex } from 'node:stream';
import { createWebSocketStream, type WebSocket } from 'ws';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { resolveClusterId } from '../../cluster-context.js';
import { accessDenied, badParameter, notFound } from '../../errors.js';
import type { LeafReachPoint } from '../../modules/trusted-clusters/leaf-reach.js';
import { leafLoginRoute } from './leaf-db-login.js';
import { parseInput } from '../../http/parse-input.js';
import type { CertRequestAuth } from '../../identity/cli-login/cert-request-auth.js';
import type { TunnelCallers } from '../../identity/cli-login/tunnel-caller.js';
import type { DatabasesService } from './databases.service.js';
import { routeDenial } from './db-access.js';
import type { CertifiedRoute, DatabaseClientCa } from './db-client-ca.js';
import type { DatabaseRecord } from './db-kind.js';

/** Serves one client connection to a database of the engine's protocol. */
export type DatabaseEngine = (connection: DatabaseConnection) => Promise<void>;

/** Its marks are the credential's (`CredentialMarks`): a lock on one ends the session. */
export interface DatabaseConnection extends CredentialMarks {
  stream: Duplex;
  user: string;
  roleSet: RoleSet;
  /** See TunnelCaller.sessionRoles: what the session's rechecks resolve access from. */
  sessionRoles: readonly string[];
  db: DatabaseRecord;
  remoteAddr?: string;
}

interface DbConnectOptions {
  databases: DatabasesService;
  certAuth: Pick<CertRequestAuth, 'identify'>;
  /** Who opens a connection: the CLI's certificate, or a root's forwarded session. */
  callers: Pick<TunnelCallers, 'identify'>;
  clusterName: string;
  engines: Partial<Record<string, DatabaseEngine>>;
  /** How this root reaches its leaves (`postern db login --cluster`). */
  leafReach?: Pick<LeafReachPoint, 'side'>;
  /** The native listeners' certificates (`postern db login`). */
  login: {
    accessCa: () => Promise<DatabaseClientCa>;
    /** `host:port` people reach the native listener of a protocol at, or '' without one. */
    listener: (protocol: string) => string;
  };
}

/** A `postern db login` certificate lives as long as a CLI sign-in's does, at most. */
const loginCertTtlMs = 12 * 3_600_000;

interface Authorized extends CredentialMarks {
  user: string;
  roleSet: RoleSet;
  sessionRoles: readonly string[];
  db: DatabaseRecord;
}

declare module 'fastify' {
  interface FastifyRequest {
    databaseConnection?: Authorized;
  }
}

type NameParams = { Params: { name: string } };
type TunnelParams = { Params: { name: string; clusterId?: string } };

/**
 * `postern proxy db NAME` and `postern db connect` open one WebSocket per client connection here,
 * signed with the user's certificate from `postern login` (or, for a trusted root's user, with
 * the leaf session this cluster granted them: tunnel-caller.ts). The credential and the database's
 * labels are checked before the upgrade (401/404 as HTTP answers); the database user and name
 * come in the client's own startup message, which the protocol's engine checks before a byte
 * reaches the database.
 */
export async function dbConnectRoutes(server: FastifyInstance, options: DbConnectOptions) {
  const { databases, certAuth, callers, engines } = options;

  const authorize = async (request: FastifyRequest<TunnelParams>) => {
    const { clusterId } = request.params;
    if (clusterId !== undefined) resolveClusterId(clusterId, options.clusterName);
    const caller = await callers.identify(request);
    const db = databases.get(request.params.name);
    if (
      !db ||
      !caller.roleSet.canAccess('db', { labels: db.metadata.labels, name: db.metadata.name })
    ) {
      throw notFound(`no database named ${request.params.name}`);
    }
    if (!engines[db.spec.protocol]) {
      throw badParameter(`Postern does not speak ${db.spec.protocol} yet`);
    }
    const unchecked = await caller.mfaRefusal(`db:${db.metadata.name}`, 'a database client');
    if (unchecked) throw accessDenied(unchecked);
    request.databaseConnection = {
      user: caller.user,
      roleSet: caller.roleSet,
      sessionRoles: caller.sessionRoles,
      db,
      ...marksOf(caller),
    };
  };

  // Public for the guard: the request is authenticated by its certificate signature instead.
  server.post<NameParams>(
    apiPaths.patterns.databaseLogin,
    { config: { access: 'public' } },
    async (request) => {
      const identity = await certAuth.identify(request);
      const body = parseInput(databaseLoginRequestSchema, request.body);
      const leaf = body.cluster_name;
      if (leaf !== undefined && leaf !== options.clusterName) {
        const route = await leafLoginRoute(
          options.leafReach?.side,
          identity,
          leaf,
          request.params.name,
          {
            dbUser: body.db_user,
            dbName: body.db_name,
          },
        );
        return loginCertificate(route, route.protocol ?? 'postgres');
      }
      const db = databases.get(request.params.name);
      if (
        !db ||
        !identity.roleSet.canAccess('db', { labels: db.metadata.labels, name: db.metadata.name })
      ) {
        throw notFound(`no database named ${request.params.name}`);
      }
      if (!body.db_name && db.spec.protocol === 'postgres') {
        throw badParameter('db_name: name a database (PostgreSQL always opens one)');
      }
      const denial = routeDenial(identity.roleSet, {
        user: identity.user,
        db,
        dbUser: body.db_user,
        dbName: body.db_name,
      });
      if (denial) throw accessDenied(denial.message);
      const route = {
        user: identity.user,
        db: db.metadata.name,
        dbUser: body.db_user,
        dbName: body.db_name,
        ...(identity.mfaDevice ? { mfaDevice: identity.mfaDevice } : {}),
        ...(identity.botInstance ? { botInstance: identity.botInstance } : {}),
        ...(identity.accessRequests.length ? { accessRequests: identity.accessRequests } : {}),
      };
      return loginCertificate(route, db.spec.protocol);
    },
  );

  /** A certificate for `route` on the listener of `protocol`, and where that listener is. */
  const loginCertificate = async (
    route: CertifiedRoute,
    protocol: string,
  ): Promise<DatabaseLoginResponse> => {
    const ca = await options.login.accessCa();
    const issued = await ca.routeCertificate(route, loginCertTtlMs);
    return {
      cert: issued.certPem,
      key: issued.keyPem,
      ca: ca.certPem,
      expires: issued.notAfter.toISOString(),
      listener: options.login.listener(protocol),
    };
  };

  /** A client connection: `dbconnect/NAME`, or `sites/CLUSTER/dbconnect/NAME` (`--cluster`). */
  const connect = (socket: WebSocket, request: FastifyRequest) => {
    const authorized = request.databaseConnection;
    if (!authorized) return socket.close(1011, 'not authorized');
    const stream = createWebSocketStream(socket);
    stream.on('error', () => undefined);
    void engines[authorized.db.spec.protocol]!({
      ...authorized,
      stream,
      remoteAddr: request.ip,
    });
  };
  for (const path of [apiPaths.patterns.databaseConnect, apiPaths.patterns.databaseConnectIn]) {
    // The credential is checked here, before the upgrade: the guard lets the route through.
    server.get<TunnelParams>(
      path,
      { websocket: true, config: { access: 'public' }, preValidation: authorize },
      connect,
    );
  }
}
