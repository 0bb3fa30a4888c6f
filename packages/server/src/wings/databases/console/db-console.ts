import type { DatabaseConsoleRequest } from '@postern/contracts';
import type { Clock } from '../../../clock.js';
import { accessDenied, badParameter, notFound } from '../../../errors.js';
import type { Identity } from '../../../http/request-identity.js';
import type { LockWatcher } from '../../../access-control/locks/lock-watcher.js';
import { lockMessage } from '../../../access-control/locks/lock-watcher.js';
import type { AccessResolver } from '../../../access-control/access/access-resolver.js';
import type { SessionHub } from '../../../modules/sessions/session-hub.js';
import type { TerminalSessions } from '../../../modules/terminal/terminal-socket.js';
import { routeDenial, routeWithdrawal, type DatabaseRoute } from '../db-access.js';
import type { DatabasesService } from '../databases.service.js';
import type { DatabaseSessions } from '../db-session-audit.js';
import { servePostgres, type PostgresEngineDeps } from '../postgres/pg-session.js';
import { inProcessPair } from './in-process-stream.js';
import { SqlConsoleChannel } from './sql-console-channel.js';

export interface DbConsoleDeps {
  databases: DatabasesService;
  hub: SessionHub;
  dbSessions: DatabaseSessions;
  engine: () => Promise<PostgresEngineDeps>;
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
      const engine = await deps.engine();
      const connect = () => {
        const { client, server } = inProcessPair();
        void servePostgres(
          {
            stream: server,
            user: identity.user,
            roleSet: identity.roleSet,
            db: route.db,
            sessionRoles: route.sessionRoles,
            open: (opened) =>
              deps.dbSessions.open(opened, 'postgres', remoteAddr, { tracked: false }),
            refuse: (refused, why) => deps.dbSessions.refuse(refused, 'postgres', why, remoteAddr),
          },
          engine,
        );
        return client;
      };
      const options = identity.roleSet.options();
      const expiresAt = Math.min(
        Date.parse(identity.session.expires),
        deps.now() + options.maxSessionTtlMs,
      );
      return deps.hub.create({
        kind: 'db',
        terminal: params.term,
        owner: { user: identity.user, roles: identity.roles },
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
          dbName: route.dbName,
          connect,
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
  if (db.spec.protocol !== 'postgres') {
    throw badParameter(`the SQL console speaks PostgreSQL; ${database} is ${db.spec.protocol}`);
  }
  const route: DatabaseRoute = {
    user: identity.user,
    db,
    dbUser: params.db_user,
    dbName: params.db_name,
    sessionRoles: identity.session.roles,
    accessRequests: identity.session.accessRequests ?? [],
  };
  const lock = deps.locks.lockFor({ user: identity.user, roles: identity.roles });
  const why = lock ? `locked: ${lockMessage(lock)}` : routeDenial(identity.roleSet, route)?.message;
  if (why) {
    deps.dbSessions.refuse(route, 'postgres', why, remoteAddr);
    throw accessDenied(why);
  }
  return route;
}
