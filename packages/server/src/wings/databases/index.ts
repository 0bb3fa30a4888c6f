import { listContext } from '../../http/resource-listers.js';
import { listenerIdentity } from './listener-identity.js';
import { TrustedProxies } from '../../net/proxy-protocol.js';
import type { Duplex } from 'node:stream';
import { SessionTrackerStore } from '../../modules/sessions/session-tracker.store.js';
import { dialTcp } from '../../modules/tunnel/dial-tcp.js';
import type { ServerContext } from '../../part.js';
import type { Wing } from '../wing.js';
import { agentDatabaseHeartbeats } from './agent-databases.js';
import { databasesRoutes } from './databases.routes.js';
import { DatabasesService } from './databases.service.js';
import { DatabaseClientCa } from './db-client-ca.js';
import { dbConnectRoutes, type DatabaseEngine } from './db-connect.routes.js';
import { dbConsoleRoutes } from './console/db-console.routes.js';
import { databaseConnectionTest } from './db-diagnostic.js';
import { signInToMysql, signInToPostgres } from './db-sign-in-test.js';
import { databaseAddress, type DatabaseRecord } from './db-kind.js';
import { DatabaseServerCerts } from './db-server-certs.service.js';
import { DatabaseSessions } from './db-session-audit.js';
import { CancelKeys } from './postgres/cancel-keys.js';
import { mysqlEngine } from './mysql/index.js';
import { MysqlThreads } from './mysql/my-threads.js';
import { postgresEngine } from './postgres/index.js';
import { startPostgresListener } from './postgres/pg-listener.js';
import { LeafCancelKeys } from './postgres/pg-leaf.js';
import { forwardCancel } from './postgres/pg-session.js';
import { PeerCancels, peerCancelRoute } from './peer-cancel.js';
import { PeerProofs } from '../../modules/sessions/peer-proof.js';
import { startMysqlListener } from './mysql/my-listener.js';
import { LeafMysqlThreads } from './mysql/my-leaf.js';
import type { NativeListenerDeps } from './native-listener.js';

/**
 * Databases: PostgreSQL and MySQL/MariaDB reached with the clients people already use,
 * through `postern proxy db` / `postern db connect`; the proxy signs in to the database with a
 * short-lived client certificate for the database user the roles allow, and audits every
 * statement (docs/databases.md).
 */
export const databasesWing = {
  name: 'databases',
  build: (ctx: ServerContext) => buildDatabases(ctx),
  routes: async (server, s, ctx) => {
    await server.register(databasesRoutes, {
      databases: s.databases,
      serverCerts: s.dbServerCerts,
      proxyServiceName: () => ctx.addresses.publicAddr().host,
      ...listContext(ctx),
    });
    await server.register(peerCancelRoute, {
      proofs: s.cancelProofs,
      proxyId: ctx.hub.proxyId,
      // This proxy's keys alone: a peer's cancel is never passed on to the peers again.
      cancel: (pid, secret, scope) =>
        forwardCancel(pid, secret, { cancelKeys: s.pgCancelKeys, dial: s.dialDatabase }, scope),
      thread: (id, user, db) => s.mysqlThreads.serverIdFor(id, user, db),
    });
    await server.register(dbConsoleRoutes, {
      databases: s.databases,
      hub: ctx.hub,
      dbSessions: s.dbSessions,
      engines: {
        postgres: async () => ({
          ca: await s.dbClientCa(),
          dial: s.dialDatabase,
          cancelKeys: s.pgCancelKeys,
        }),
        mysql: async () => ({
          ca: await s.dbClientCa(),
          dial: s.dialDatabase,
          threads: s.mysqlThreads,
        }),
      },
      access: ctx.access,
      locks: ctx.locks,
      clusterName: ctx.config.clusterName,
      now: ctx.now,
      guard: ctx.guard,
      sessionMfa: ctx.identity.sessionMfa,
      pingIntervalMs: ctx.pingIntervalMs,
      resumes: ctx.terminalResumes.resumes,
      relayResume: ctx.terminalResumes.relayResume,
    });
    await server.register(dbConnectRoutes, {
      databases: s.databases,
      certAuth: ctx.identity.certAuth,
      callers: ctx.identity.tunnelCallers,
      clusterName: ctx.config.clusterName,
      leafReach: ctx.leafReach,
      login: {
        accessCa: s.dbAccessCa,
        listener: (protocol) =>
          (protocol === 'postgres' ? ctx.config.postgresAddr : ctx.config.mysqlAddr)
            ? ctx.addresses.publicEndpoint(protocol)
            : '',
      },
      engines: {
        postgres: await s.postgresEngine(),
        mysql: await s.mysqlEngine(),
      },
    });
  },
  start: async (s) => {
    await s.databases.start();
  },
  close: async (s) => {
    await s.dbSessions.endAll('the proxy is stopping');
    await s.databases.close();
  },
  listeners: [
    {
      name: 'postgres',
      enabled: (ctx) => ctx.config.postgresAddr !== undefined,
      start: async (s, ctx) => {
        const listener = await startPostgresListener(
          {
            ...(await nativeListenerDeps(s, ctx, 'PostgreSQL')),
            engine: {
              ca: await s.dbClientCa(),
              dial: s.dialDatabase,
              cancelKeys: s.pgCancelKeys,
              peers: s.peerCancels,
            },
            leaf: { reach: () => ctx.leafReach.side, cancels: new LeafCancelKeys() },
          },
          ctx.config.postgresAddr!,
        );
        ctx.log('info', 'native PostgreSQL listener', listener.address);
        return listener;
      },
    },
    {
      name: 'mysql',
      enabled: (ctx) => ctx.config.mysqlAddr !== undefined,
      start: async (s, ctx) => {
        const listener = await startMysqlListener(
          {
            ...(await nativeListenerDeps(s, ctx, 'MySQL')),
            engine: {
              ca: await s.dbClientCa(),
              dial: s.dialDatabase,
              threads: s.mysqlThreads,
              peers: s.peerCancels,
            },
            leaf: { reach: () => ctx.leafReach.side, threads: new LeafMysqlThreads() },
          },
          ctx.config.mysqlAddr!,
        );
        ctx.log('info', 'native MySQL listener', listener.address);
        return listener;
      },
    },
  ],
  kinds: (s) => [
    { kind: 'db', count: () => s.databases.count(), find: (name) => s.databases.find(name) },
  ],
} satisfies Wing<DatabasesServices>;

export type DatabasesServices = ReturnType<typeof buildDatabases>;

/** What the native listeners share: the access CA, the names, the identity and session checks. */
async function nativeListenerDeps(
  s: DatabasesServices,
  ctx: ServerContext,
  title: string,
): Promise<NativeListenerDeps> {
  const host = ctx.addresses.publicAddr().host;
  return {
    accessCa: await s.dbAccessCa(),
    serverNames: [...new Set([host, 'localhost', '127.0.0.1', '::1'])],
    databases: s.databases,
    identify: listenerIdentity(ctx.access, ctx.locks),
    sessions: s.dbSessions,
    draining: () => ctx.hub.draining,
    trustedProxies: new TrustedProxies(ctx.config.trustedProxies),
    renewalFailed: (error) =>
      ctx.log('warn', `the ${title} listener could not renew its certificate; retrying`, {
        reason: (error as Error).message,
      }),
  };
}

function buildDatabases(ctx: ServerContext) {
  const { backend, audit, now, config } = ctx;
  const databases = new DatabasesService(backend, audit, {
    now,
    onError: ctx.onError('databases'),
    configured: config.databases,
  });
  // Databases agents serve: reported on their heartbeats, reached through their tunnels.
  ctx.agentReports.add('db', agentDatabaseHeartbeats(databases, config.heartbeatIntervalMs * 3));
  let ca: Promise<DatabaseClientCa> | undefined;
  const clientCa = () => (ca ??= DatabaseClientCa.load(backend, config.clusterName, now));
  let accessCa: Promise<DatabaseClientCa> | undefined;
  const loadAccessCa = () =>
    (accessCa ??= DatabaseClientCa.load(backend, config.clusterName, now, 'access'));
  const dial = (db: DatabaseRecord): Promise<Duplex> => {
    if (db.source === 'agent') return ctx.tunnels.dial({ kind: 'db', name: db.metadata.name });
    return dialTcp(databaseAddress(db));
  };
  const pgCancelKeys = new CancelKeys();
  // A cancel that a load balancer hands to another proxy than the session's (peer-cancel.ts).
  const cancelProofs = new PeerProofs({ backend, now });
  const peerCancels = new PeerCancels({
    proofs: cancelProofs,
    proxyId: ctx.hub.proxyId,
    trackers: () => ctx.hub.list(),
  });
  const dbSessions = new DatabaseSessions({
    audit,
    access: ctx.access,
    locks: ctx.locks,
    trackers: new SessionTrackerStore(backend),
    proxyId: ctx.hub.proxyId,
    reach: () => ctx.hub.reach,
    clusterName: config.clusterName,
    now,
  });
  const mysqlThreads = new MysqlThreads();
  let pgEngine: Promise<DatabaseEngine> | undefined;
  const postgres = () =>
    (pgEngine ??= clientCa().then((ca) =>
      postgresEngine({
        ca,
        dial,
        cancelKeys: pgCancelKeys,
        peers: peerCancels,
        sessions: dbSessions,
      }),
    ));
  let myEngine: Promise<DatabaseEngine> | undefined;
  const mysql = () =>
    (myEngine ??= clientCa().then((ca) =>
      mysqlEngine({ ca, dial, threads: mysqlThreads, peers: peerCancels, sessions: dbSessions }),
    ));
  // Discover's connection test of a database: the roles, whether it answers, then a sign-in.
  ctx.connectionDiagnostics.add(
    'db',
    databaseConnectionTest({
      databases,
      dial,
      signIn: async (db, caller, route, timeoutMs) => {
        const { user, roleSet, sessionRoles } = caller;
        const connection = { db, user, roleSet, sessionRoles };
        return db.spec.protocol === 'postgres'
          ? signInToPostgres(await postgres(), connection, route, timeoutMs)
          : signInToMysql(await mysql(), connection, route, timeoutMs);
      },
    }),
  );
  return {
    databases,
    dbClientCa: clientCa,
    dbAccessCa: loadAccessCa,
    dbServerCerts: new DatabaseServerCerts({ ca: clientCa, audit }),
    dialDatabase: dial,
    pgCancelKeys,
    cancelProofs,
    peerCancels,
    /** The engines, as the tunnel and the connection test use them. */
    postgresEngine: postgres,
    mysqlEngine: mysql,
    mysqlThreads,
    dbSessions,
  };
}
