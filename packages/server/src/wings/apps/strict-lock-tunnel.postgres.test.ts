import { rm } from 'node:fs/promises';
import { apiPaths, appResourceSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { hostActor } from '../../access-control/access/actor.js';
import { TestSchemas } from '../../backend/testing/postgres.testkit.js';
import { signRequest } from '../../ssh/signed-request.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { closeBehindRelay, relayedPostgres } from '../../testing/relayed-postgres.testkit.js';
import type { TcpRelay } from '../../testing/tcp-relay.testkit.js';

// `lock: strict` beyond the terminal: a proxy whose cluster database goes silent (its
// connections frozen behind a loopback relay) cannot see locks written meanwhile, so the lock
// watcher fences users whose roles say `lock: strict` as if locked, and, as this cluster's
// `auth.locking_mode` is strict, users whose roles do not say. Their live app tunnels (as
// `postern proxy app` holds them, to the machine's real Redis) end with the reason; the tunnel
// of a user whose role says `lock: best_effort` goes on. Real PostgreSQL storage, real Redis,
// real sockets.
const schemas = new TestSchemas();
let relay: TcpRelay;
let app: TestApp;
let port: number;
let home: string;
let key: Awaited<ReturnType<typeof signedInHome>>['key'];

const cacheApp = appResourceSchema.parse({
  kind: 'app',
  metadata: { name: 'cache', labels: { env: 'prod' } },
  spec: { uri: 'tcp://127.0.0.1:6379' },
});

beforeAll(async () => {
  await schemas.connect();
  const relayed = await relayedPostgres();
  relay = relayed.relay;
  app = await createTestApp({
    storage: { type: 'postgres', url: relayed.url, schema: schemas.newName() },
    apps: [cacheApp],
    auth: { locking_mode: 'strict' },
  });
  for (const [name, options] of [
    ['fenced-apps', { lock: 'strict' }],
    ['default-apps', {}],
    ['plain-apps', { lock: 'best_effort' }],
  ] as const) {
    await app.services.roles.create(
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name },
        spec: { options, allow: { app_labels: { env: 'prod' } } },
      }),
      hostActor('test'),
    );
  }
  await app.services.users.create({ name: 'sam', roles: ['fenced-apps'] }, 'test');
  await app.services.users.create({ name: 'dana', roles: ['default-apps'] }, 'test');
  await app.services.users.create({ name: 'bob', roles: ['plain-apps'] }, 'test');
  ({ port } = await app.listenOnLoopback());
  ({ home, key } = await signedInHome(app, port, 'bob', ['plain-apps']));
}, 60_000);

afterAll(async () => {
  await closeBehindRelay(relay, async () => app?.close());
  await schemas.dropAll();
  if (home) await rm(home, { recursive: true, force: true });
});

/** A TCP app tunnel as `postern proxy app cache` opens it, signed with `user`'s certificate. */
async function tunnel(user: string): Promise<WebSocket> {
  const headers = signRequest({
    method: 'GET',
    pathAndQuery: apiPaths.appTcp('cache'),
    certificateLine: app.services.ca.issueUserCertificate({
      user,
      roles: [],
      logins: [],
      publicKey: key.publicKey,
      ttlMs: 120_000,
    }),
    privateKeyPem: key.privateKeyPem,
    now: Date.now(),
  });
  const socket = new WebSocket(`ws://127.0.0.1:${port}${apiPaths.appTcp('cache')}`, { headers });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return socket;
}

/** A Redis PING through the tunnel: the app answers +PONG while the tunnel carries bytes. */
function ping(socket: WebSocket): Promise<string> {
  return new Promise((resolve) => {
    socket.once('message', (data: Buffer) => resolve(data.toString('utf8').trim()));
    socket.send(Buffer.from('PING\r\n'));
  });
}

describe('lock: strict on app tunnels when the cluster database goes silent', () => {
  it('ends the strict and cluster-default users’ tunnels with the reason, and leaves the best_effort user’s', async () => {
    const strict = await tunnel('sam');
    const byDefault = await tunnel('dana');
    const plain = await tunnel('bob');
    for (const socket of [strict, byDefault, plain]) expect(await ping(socket)).toBe('+PONG');
    const closes = [strict, byDefault].map(
      (socket) =>
        new Promise<{ code: number; reason: string }>((resolve) =>
          socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
        ),
    );

    relay.freeze();
    for (const { code, reason } of await Promise.all(closes)) {
      expect(code).toBe(1000);
      expect(reason).toMatch(/^locked: the lock list cannot be confirmed current right now/);
    }
    expect(plain.readyState).toBe(WebSocket.OPEN);
    expect(await ping(plain)).toBe('+PONG');
    plain.close();
  }, 60_000);
});
