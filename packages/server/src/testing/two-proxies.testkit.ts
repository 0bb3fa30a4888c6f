import { readFile, rm } from 'node:fs/promises';
import { TestSchemas, testPostgresUrl } from '../backend/testing/postgres.testkit.js';
import { loginCommand } from '../wings/databases/cli/db-client.js';
import { listenerIdentity } from '../wings/databases/listener-identity.js';
import type { NativeListener, NativeListenerDeps } from '../wings/databases/native-listener.js';
import { startMysqlListener } from '../wings/databases/mysql/my-listener.js';
import { startPostgresListener } from '../wings/databases/postgres/pg-listener.js';
import { TrustedProxies } from '../net/proxy-protocol.js';
import { createTestApp, type TestApp } from './app-harness.testkit.js';
import { signedInHome } from './cli-home.testkit.js';

/**
 * Two proxies of one cluster on one backend (a PostgreSQL schema), each listening on loopback and
 * advertising it, as behind a load balancer: `b` is where a session is held, `a` the other one.
 */
export interface TwoProxies {
  a: TestApp;
  b: TestApp;
  /** Closes both and drops the schema. */
  close(): Promise<void>;
}

export async function startTwoProxies(): Promise<TwoProxies> {
  const schemas = new TestSchemas();
  await schemas.connect();
  const storage = { type: 'postgres' as const, url: testPostgresUrl, schema: schemas.newName() };
  const b = await createTestApp({ storage, audit: storage });
  const a = await createTestApp({ storage, audit: storage });
  for (const app of [a, b]) app.context.hub.advertise((await app.listenOnLoopback()).baseUrl);
  return {
    a,
    b,
    async close() {
      await a.close();
      await b.close();
      await schemas.dropAll();
    },
  };
}

/** Waits until `done()`, polling; fails with `what` after `timeoutMs`. */
export async function until(done: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What both native listeners take from an app, as the wing gives it (peers included). */
async function listenerDeps(app: TestApp): Promise<NativeListenerDeps> {
  const { services } = app;
  return {
    accessCa: await services.dbAccessCa(),
    serverNames: ['localhost', '127.0.0.1'],
    databases: services.databases,
    identify: listenerIdentity(services.access, services.lockWatcher),
    sessions: services.dbSessions,
    draining: () => false,
    trustedProxies: new TrustedProxies([]),
  };
}

const loopback = { host: '127.0.0.1', port: 0 };

/** The app's native listener for `protocol`, its engine asking the peers as the wing's does. */
export async function nativeListenerOf(
  app: TestApp,
  protocol: 'postgres' | 'mysql',
): Promise<NativeListener> {
  const { services } = app;
  const common = { ca: await services.dbClientCa(), dial: services.dialDatabase };
  const peers = services.peerCancels;
  return protocol === 'postgres'
    ? startPostgresListener(
        {
          ...(await listenerDeps(app)),
          engine: { ...common, cancelKeys: services.pgCancelKeys, peers },
        },
        loopback,
      )
    : startMysqlListener(
        {
          ...(await listenerDeps(app)),
          engine: { ...common, threads: services.mysqlThreads, peers },
        },
        loopback,
      );
}

/** `postern db login` as `user` through `app`: the certificate files' contents, for a driver. */
export async function dbLoginTls(
  app: TestApp,
  user: { name: string; roles: string[] },
  route: { db: string; dbUser: string; dbName: string },
): Promise<{ ca: string; cert: string; key: string }> {
  const { port } = app.server.server.address() as { port: number };
  const { home } = await signedInHome(app, port, user.name, user.roles);
  try {
    const login = await loginCommand({ POSTERN_HOME: home }, route.db, route);
    const read = (file: string) => readFile(file, 'utf8');
    return {
      ca: await read(login.files.ca),
      cert: await read(login.files.cert),
      key: await read(login.files.key),
    };
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
