import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TestSchemas, testPostgresUrl } from '../../../backend/testing/postgres.testkit.js';
import { BackendSemaphore, SemaphoreFullError } from '../../../backend/semaphore.js';
import { MemoryBackend } from '../../../backend/memory.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { openSshClient, type OpenSshClientSetup } from '../../../testing/openssh-client.testkit.js';
import { startTestSshProxy } from '../../../testing/ssh-proxy.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';

// max_connections is per user across every proxy on the same storage: two app instances on one
// PostgreSQL schema, each with its SSH proxy, take 50 connection attempts at once between them.
const schemas = new TestSchemas();
const limit = 3;
const attempts = 50;
let first: TestApp;
let second: TestApp;
let proxies: Awaited<ReturnType<typeof startTestSshProxy>>[] = [];
const clients: OpenSshClientSetup[] = [];

beforeAll(async () => {
  await schemas.connect();
  const storage = { type: 'postgres' as const, url: testPostgresUrl, schema: schemas.newName() };
  first = await createTestApp({ storage, audit: storage });
  second = await createTestApp({ storage, audit: storage });
  await first.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'limited' },
      spec: { options: { max_connections: limit }, allow: {} },
    }),
    hostActor('test'),
  );
  await first.services.users.create({ name: 'maxi', roles: ['limited'] }, 'test');
  // The second instance sees the user and the role through its watch.
  await vi.waitFor(
    () =>
      expect(second.services.access.resolve('maxi', []).roleSet.options().maxConnections).toBe(
        limit,
      ),
    { timeout: 10_000 },
  );
  proxies = [await startTestSshProxy(first), await startTestSshProxy(second)];
  for (const proxy of proxies) {
    clients.push(
      await openSshClient({
        ca: first.services.ca,
        user: 'maxi',
        roles: ['limited'],
        logins: [],
        proxyPort: proxy.port,
      }),
    );
  }
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.remove();
  for (const proxy of proxies) await proxy.stop();
  await first?.close();
  await second?.close();
  await schemas.dropAll();
});

describe('max_connections across two proxies on one PostgreSQL', () => {
  it(`lets exactly ${limit} of ${attempts} parallel connections in, and refuses the rest`, async () => {
    const children: ChildProcess[] = [];
    const exited = new Set<ChildProcess>();
    for (let n = 0; n < attempts; n++) {
      // `ssh -N proxy`: signs in to the proxy and holds the connection, nothing else.
      const child = clients[n % 2]!.spawn('ssh', ['-N', 'proxy']);
      child.on('exit', () => exited.add(child));
      children.push(child);
    }
    const refusals = async () =>
      (
        await first.audit.search({
          from: new Date(0),
          to: new Date(Date.now() + 60_000),
          limit: 5000,
        })
      ).events.filter((e) => e.code === 'T1006W' && e.user === 'maxi');
    try {
      await vi.waitFor(
        async () => {
          expect(exited.size).toBe(attempts - limit);
          expect(await refusals()).toHaveLength(attempts - limit);
        },
        { timeout: 60_000, interval: 200 },
      );
      const semaphore = new BackendSemaphore(first.backend, { prefix: '/semaphores/connections/' });
      expect(await semaphore.holders('maxi')).toBe(limit);
      expect((await refusals())[0]!.reason).toBe(
        `too many connections: max_connections allows ${limit} at a time`,
      );
      // The connections let in are still open; closing them gives their leases back.
      const open = children.filter((child) => !exited.has(child));
      expect(open).toHaveLength(limit);
      for (const child of open) child.kill();
      await vi.waitFor(async () => expect(await semaphore.holders('maxi')).toBe(0), {
        timeout: 10_000,
      });
    } finally {
      for (const child of children) if (!exited.has(child)) child.kill();
    }
  }, 90_000);
});

describe('BackendSemaphore', () => {
  it("lets a crashed holder's lease lapse, without a release", async () => {
    const backend = new MemoryBackend();
    let now = Date.now();
    const semaphore = new BackendSemaphore(backend, { prefix: '/sem/', now: () => now });
    await semaphore.acquire('u', 1); // never released: its proxy "crashed"
    await expect(semaphore.acquire('u', 1)).rejects.toBeInstanceOf(SemaphoreFullError);
    now += 31_000; // past the lease's expiry
    const lease = await semaphore.acquire('u', 1);
    expect(await semaphore.holders('u')).toBe(1);
    await lease.release();
    expect(await semaphore.holders('u')).toBe(0);
    await backend.close();
  });
});
