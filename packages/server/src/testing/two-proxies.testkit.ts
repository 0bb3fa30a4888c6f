import { readFile, rm } from 'node:fs/promises';
import { TestSchemas, testPostgresUrl } from '../backend/testing/postgres.testkit.js';
import { loginCommand } from '../wings/databases/cli/db-client.js';
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
