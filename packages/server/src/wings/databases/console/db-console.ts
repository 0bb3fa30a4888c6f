import type { DatabaseConsoleRequest } from '@postern/contracts';
import type { Duplex } from 'node:stream';
import type { Clock } from '../../../clock.js';
import { accessDenied, badParameter, notFound } from '../../../errors.js';
import { webSessionMarks, type Identity } from '../../../http/request-identity.js';
import type { LockWatcher } from '../../../access-control/locks/lock-watcher.js';
import { lockMessage } from '../../../access-control/locks/lock-watcher.js';
import type { AccessResolver } from '../../../access-control/access/access-resolver.js';
import type { SessionHub } from '../../../modules/sessions/session-hub.js';
import type { TerminalSessions } from '../../../modules/terminal/terminal-socket.js';
import { routeDenial, routeWithdrawal, type DatabaseRoute } from '../db-access.js';
import type { DatabasesService } from '../databases.service.js';
import type { DatabaseSessions } from '../db-session-audit.js';
import { serveMysql, type MysqlEngineDeps } from '../mysql/my-session.js';
import { servePostgres, type PostgresEngineDeps } from '../postgres/pg-session.js';
import type { ConsoleClient } from './console-client.js';
import { servedInProcess } from './in-process-stream.js';
import { MysqlConsoleClient } from './my-console-client.js';
import { PostgresConsoleClient } from './pg-console-client.js';
import { SqlConsoleChannel } from './sql-console-channel.js';

export interface DbConsoleDeps {
  databases: DatabasesService;
  hub: SessionHub;
  dbSessions: DatabaseSessions;
  /** Each engine's parts (CA, dialer, cancel keys or thread ids), as psql's and mariadb's use. */
  engines: {
    postgres: () => Promise<PostgresEngineDeps>;
    mysql: () => Promise<MysqlEngineDeps>;
  };
  access: Pick<AccessResolver, 'resolve'>;
  locks: Pick<LockWatcher, 'isLocked' | 'lockFor'>;
  clusterName: string;
  now: Clock;
}

/**
 * The browser's SQL console as sessions of the terminal socket: each one a live session in the
 * hub (recorded, listed in Active Sessions as `db`, ended by locks and by its TTL) over a
 * SqlConsoleChannel, whose statements go through the PostgreSQL engine as psql's would.
 */
export function dbConsoleSessions(
  deps: DbConsoleDeps,
  database: string,
  remoteAddr: string,
  request: TerminalSessions<DatabaseConsoleRequest>['request'],
): TerminalSessions<DatabaseConsoleRequest> {
  return {
    request,
    start: async (identity, params) => {
      deps.hub.assertAccepting();
      const route = authorize(deps, identity, database, params, remoteAddr);
      const client = await consoleClient(deps, identity, route, remoteAddr);
      const options = identity.roleSet.options();
      const expiresAt = Math.min(
        Date.parse(identity.session.expires),
        deps.now() + options.maxSessionTtlMs,
      );
      return deps.hub.create({
        kind: 'db',
        terminal: params.term,
        owner: { user: identity.user, roles: identity.roles, ...webSessionMarks(identity) },
        login: route.dbUser,
        node: {
          id: route.db.metadata.name,
          hostname: route.db.metadata.name,
          addr: route.db.spec.uri,
        },
        clusterName: deps.clusterName,
        proxyId: deps.hub.proxyId,
        traceId: '',
        // Interactive, as a shell is: the recording is listed as playable, the player plays it.
        command: '',
        expiresAt,
        idleTimeoutMs: options.clientIdleTimeoutMs,
        recordSession: options.recordSession.default,
        channel: new SqlConsoleChannel({
          resource: route.db.metadata.name,
          dbUser: route.dbUser,
          client,
        }),
        recheck: () => routeWithdrawal(deps, route),
      });
    },
    joinable: () => {
      throw badParameter('a SQL console cannot be joined');
    },
    guardParty: () => () => undefined,
  };
}

/** The route, when the caller may take it now; refusals are audited as denied sessions. */
function authorize(
  deps: DbConsoleDeps,
  identity: Identity,
  database: string,
  params: DatabaseConsoleRequest,
  remoteAddr: string,
): DatabaseRoute {
  const db = deps.databases.get(database);
  if (
    !db ||
    !identity.roleSet.canAccess('db', { labels: db.metadata.labels, name: db.metadata.name })
  ) {
    throw notFound(`no database named ${database}`);
  }
  const route: DatabaseRoute = {
    user: identity.user,
    db,
    dbUser: params.db_user,
    dbName: params.db_name,
    sessionRoles: identity.session.roles,
    accessRequests: identity.session.accessRequests ?? [],
    ...(identity.session.mfaDevice ? { mfaDevice: identity.session.mfaDevice } : {}),
  };
  const { user, roles } = identity;
  const lock = deps.locks.lockFor({ user, roles, ...webSessionMarks(identity) });
  const why = lock ? `locked: ${lockMessage(lock)}` : routeDenial(identity.roleSet, route)?.message;
  if (why) {
    deps.dbSessions.refuse(route, db.spec.protocol, why, remoteAddr);
    throw accessDenied(why);
  }
  return route;
}

/**
 * The console's connection in the database's own dialect. Each of its streams is served by that
 * protocol's engine in-process, as a psql's or mariadb's connection is, except that the session
 * is tracked by the hub (the console is the live session) rather than by the engine.
 */
async function consoleClient(
  deps: DbConsoleDeps,
  identity: Identity,
  route: DatabaseRoute,
  remoteAddr: string,
): Promise<ConsoleClient> {
  const { protocol } = route.db.spec;
  const client = (stream: Duplex) => ({
    stream,
    user: identity.user,
    roleSet: identity.roleSet,
    db: route.db,
    sessionRoles: route.sessionRoles,
    open: (opened: DatabaseRoute) =>
      deps.dbSessions.open(opened, protocol, remoteAddr, { tracked: false }),
    refuse: (refused: DatabaseRoute, why: string) =>
      deps.dbSessions.refuse(refused, protocol, why, remoteAddr),
  });
  const options = { dbUser: route.dbUser, dbName: route.dbName };
  if (protocol === 'postgres') {
    const engine = await deps.engines.postgres();
    return new PostgresConsoleClient({
      ...options,
      connect: () => servedInProcess((stream) => servePostgres(client(stream), engine)),
    });
  }
  const engine = await deps.engines.mysql();
  return new MysqlConsoleClient({
    ...options,
    connect: () => servedInProcess((stream) => serveMysql(client(stream), engine)),
  });
}
