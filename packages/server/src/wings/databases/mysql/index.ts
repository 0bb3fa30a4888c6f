import { marksOf } from '../../../access-control/locks/lock-watcher.js';
import type { DatabaseEngine } from '../db-connect.routes.js';
import type { DatabaseSessions } from '../db-session-audit.js';
import { serveMysql, type MysqlEngineDeps } from './my-session.js';

/** The MySQL/MariaDB engine, bound to the wing's CA, dialer and session audit. */
export function mysqlEngine(deps: MysqlEngineDeps & { sessions: DatabaseSessions }) {
  const engine: DatabaseEngine = (connection) =>
    serveMysql(
      {
        stream: connection.stream,
        user: connection.user,
        roleSet: connection.roleSet,
        sessionRoles: connection.sessionRoles,
        db: connection.db,
        ...marksOf(connection),
        open: (route) => deps.sessions.open(route, 'mysql', connection.remoteAddr),
        refuse: (route, why) => deps.sessions.refuse(route, 'mysql', why, connection.remoteAddr),
      },
      deps,
    );
  return engine;
}
