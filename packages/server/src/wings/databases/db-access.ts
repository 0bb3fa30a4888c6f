import type { AccessResolver } from '../../access-control/access/access-resolver.js';
import {
  marksOf,
  type CredentialMarks,
  type LockWatcher,
} from '../../access-control/locks/lock-watcher.js';
import { permits, type RoleSet } from '../../access-control/rbac/index.js';
import type { DatabaseRecord } from './db-kind.js';

/**
 * Who asks for which database user and name on which database. Its marks are those of the
 * caller's credential (the MFA device, the bot instance, the access requests it assumed, counted
 * while approved): a lock on one ends the session.
 */
export interface DatabaseRoute extends CredentialMarks {
  /** The Postern user. */
  user: string;
  db: DatabaseRecord;
  dbUser: string;
  dbName: string;
  /**
   * The roles of the web session behind the route, for a user without a record (sessions the
   * tests and the e2e harness write): access is judged again with them, as for a terminal.
   */
  sessionRoles?: readonly string[];
}

/** What the roles refuse: the database itself, the database user or the database name. */
export interface RouteDenial {
  refused: 'db' | 'user' | 'name';
  message: string;
}

/**
 * Why the roles refuse the route, or undefined when they allow it: the database's labels, then
 * the database user (`db_users`), then the database name (`db_names`), as the reference checks.
 * An empty name (a MySQL client that opens no database) opens nothing, so it needs no grant.
 */
export function routeDenial(roleSet: RoleSet, route: DatabaseRoute): RouteDenial | undefined {
  const { db, user, dbUser, dbName } = route;
  const labels = { labels: db.metadata.labels, name: db.metadata.name };
  if (!roleSet.canAccess('db', labels)) {
    return {
      refused: 'db',
      message: `access to db denied: ${user} may not reach database ${db.metadata.name}`,
    };
  }
  if (!permits(roleSet.dbUsersFor(labels), dbUser)) {
    return {
      refused: 'user',
      message: `access to db denied: ${user} may not connect to ${db.metadata.name} as database user "${dbUser}"`,
    };
  }
  if (dbName !== '' && !permits(roleSet.dbNamesFor(labels), dbName)) {
    return {
      refused: 'name',
      message: `access to db denied: ${user} may not open database "${dbName}" on ${db.metadata.name}`,
    };
  }
  return undefined;
}

/** routeDenial's message alone. */
export function routeRefusal(roleSet: RoleSet, route: DatabaseRoute): string | undefined {
  return routeDenial(roleSet, route)?.message;
}

/**
 * Asks again, for a live session, whether its user still may: a lock on the user, their roles or
 * the database ends it; so does a role change that withdraws the route.
 */
export function routeWithdrawal(
  deps: { access: Pick<AccessResolver, 'resolve'>; locks: Pick<LockWatcher, 'isLocked'> },
  route: DatabaseRoute,
): string | undefined {
  const resolved = deps.access.resolve(
    route.user,
    route.sessionRoles ?? [],
    route.accessRequests ?? [],
  );
  const subject = { user: route.user, roles: resolved.roles, ...marksOf(route) };
  if (deps.locks.isLocked(subject)) {
    return `${route.user} is locked`;
  }
  return routeRefusal(resolved.roleSet, route);
}
