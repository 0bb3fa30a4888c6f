import { marksOf } from '../../../access-control/locks/lock-watcher.js';
import type { DatabaseEngine } from '../db-connect.routes.js';
import type { DatabaseSessions } from '../db-session-audit.js';
import { servePostgres, type PostgresEngineDeps } from './pg-session.js';

/** The PostgreSQL engine, bound to the wing's CA, dialer, cancel keys and session audit. */
export function postgresEngine(deps: PostgresEngineDeps & { sessions: DatabaseSessions }) {
  const engine: DatabaseEngine = (connection) =>
    servePostgres(
      {
        stream: connection.stream,
        user: connection.user,
        roleSet: connection.roleSet,
        sessionRoles: connection.sessionRoles,
        db: connection.db,
        ...marksOf(connection),
        open: (route) => deps.sessions.open(route, 'postgres', connection.remoteAddr),
        refuse: (route, why) => deps.sessions.refuse(route, 'postgres', why, connection.remoteAddr),
      },
      deps,
    );
  return engine;
}
