import { connect } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterSecret } from '../../cluster-secrets.js';
import { peerProofHeaders } from '../../modules/sessions/peer-proof.js';
import type { TestApp } from '../../testing/app-harness.testkit.js';
import { createDatabaseRole, registerTestDatabase } from '../../testing/databases.testkit.js';
import {
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../testing/private-postgres.testkit.js';
import {
  dbLoginTls,
  startTwoProxies,
  until,
  type TwoProxies,
} from '../../testing/two-proxies.testkit.js';
import { nativeListenerOf } from '../../testing/native-listeners.testkit.js';
import type { NativeListener } from './native-listener.js';
import { peerCancelPath } from './peer-cancel.js';
import { cancelRequest } from './postgres/pg-wire.js';

// Two proxies on one cluster backend (a PostgreSQL schema), each with its native PostgreSQL
// listener, as behind a load balancer. A query runs through proxy B; its cancel request lands on
// proxy A, which holds no such key and asks B over the internal, proven route. A real PostgreSQL
// is behind both. Every connection is to loopback.

let proxies: TwoProxies;
let a: TestApp;
let b: TestApp;
const listeners: Record<'a' | 'b', NativeListener | undefined> = { a: undefined, b: undefined };
let postgres: PrivatePostgres;
let tls: { ca: string; cert: string; key: string };
let bUrl: string;

beforeAll(async () => {
  proxies = await startTwoProxies();
  ({ a, b } = proxies);
  bUrl = b.context.hub.address!;
  const clientCa = await b.services.dbClientCa();
  postgres = await startPrivatePostgres({ tls: { clientCaPem: clientCa.certPem } });
  await postgres.sql('create role alice_db login');
  await postgres.sql('create database appdb owner alice_db');
  await registerTestDatabase(b, postgres, { name: 'pg', protocol: 'postgres' });
  await createDatabaseRole(b, 'pg-user', { db_users: ['alice_db'], db_names: ['appdb'] });
  await b.services.users.create({ name: 'alice', roles: ['pg-user'] }, 'test');
  await until(() => a.context.access.users.get('alice') !== undefined, 'proxy A to see alice');
  listeners.a = await nativeListenerOf(a, 'postgres');
  listeners.b = await nativeListenerOf(b, 'postgres');
  const route = { db: 'pg', dbUser: 'alice_db', dbName: 'appdb' };
  tls = await dbLoginTls(b, { name: 'alice', roles: ['pg-user'] }, route);
}, 120_000);

afterAll(async () => {
  await listeners.a?.stop();
  await listeners.b?.stop();
  await proxies?.close();
  await postgres?.destroy();
});

/** alice's session through proxy B's listener, with the cancel key B gave her client. */
async function sessionThroughB() {
  const client = new pg.Client({
    host: '127.0.0.1',
    port: listeners.b!.address.port,
    user: 'alice_db',
    database: 'appdb',
    ssl: { ...tls, servername: 'localhost' },
  });
  await client.connect();
  const { processID: pid, secretKey: secret } = client as unknown as {
    processID: number;
    secretKey: number;
  };
  const key = Buffer.alloc(4);
  key.writeInt32BE(secret);
  // B's session shows in the trackers, with where B is reached: what A looks for.
  await until(
    () => a.context.hub.list().some((t) => t.kind === 'db' && t.proxyAddr === bUrl),
    'the session’s tracker on proxy A',
  );
  return { client, pid, key };
}

/** A cancel request as libpq sends it: the first packet of a plain connection, then the close. */
function sendCancel(port: number, pid: number, key: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => socket.end(cancelRequest(pid, key)));
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

/** How a running `pg_sleep` ended, and after how long. */
async function sleepOutcome(client: pg.Client, seconds: number) {
  const started = Date.now();
  const outcome = await client.query(`select pg_sleep(${seconds})`).then(
    () => 'finished',
    (error: Error) => error.message,
  );
  return { outcome, ms: Date.now() - started };
}

describe('a PostgreSQL cancel that lands on another proxy of the cluster', () => {
  it('is passed to the proxy holding the session, which cancels the query', async () => {
    const { client, pid, key } = await sessionThroughB();
    try {
      const running = sleepOutcome(client, 30);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await sendCancel(listeners.a!.address.port, pid, key);
      const { outcome, ms } = await running;
      expect(outcome).toBe('canceling statement due to user request');
      expect(ms).toBeLessThan(5000);
      // The session goes on after its query was cancelled.
      expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  });

  it('cancels nothing for a key no proxy gave', async () => {
    const { client, pid, key } = await sessionThroughB();
    try {
      const running = sleepOutcome(client, 1.5);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const wrong = Buffer.from(key.map((byte) => byte ^ 0xff));
      await sendCancel(listeners.a!.address.port, pid, wrong);
      expect((await running).outcome).toBe('finished');
    } finally {
      await client.end();
    }
  });
});

describe('the internal cancel route', () => {
  const post = (headers: Record<string, string>) =>
    fetch(`${bUrl}${peerCancelPath}`, { method: 'POST', headers });
  const claim = (extra: object = {}) => ({
    protocol: 'postgres',
    to: b.context.hub.proxyId,
    ts: Date.now(),
    nonce: Math.random().toString(36).slice(2).padEnd(16, 'x'),
    pid: 1,
    secret: Buffer.alloc(4).toString('base64'),
    ...extra,
  });

  it('refuses a request without a proof, with a join’s proof, for another proxy, or replayed', async () => {
    const secret = await clusterSecret(b.backend, 'proxy-peer');
    expect((await post({})).status).toBe(403);
    expect((await post(peerProofHeaders(secret, claim(), 'join'))).status).toBe(403);
    const forA = claim({ to: a.context.hub.proxyId });
    expect((await post(peerProofHeaders(secret, forA, 'db-cancel'))).status).toBe(403);
    const stale = claim({ ts: Date.now() - 60_000 });
    expect((await post(peerProofHeaders(secret, stale, 'db-cancel'))).status).toBe(403);
    const once = peerProofHeaders(secret, claim(), 'db-cancel');
    const first = await post(once);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ cancelled: false });
    const again = await post(once);
    expect(again.status).toBe(403);
    expect(await again.text()).toContain('proof already used');
  });

  it('cancels only within the scope it names (a tunnel’s user and database)', async () => {
    const { client, pid, key } = await sessionThroughB();
    const secret = await clusterSecret(b.backend, 'proxy-peer');
    const asked = (scope: object) =>
      post(
        peerProofHeaders(
          secret,
          claim({ pid, secret: key.toString('base64'), scope }),
          'db-cancel',
        ),
      );
    try {
      const running = sleepOutcome(client, 30);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const other = await asked({ user: 'mallory', db: 'pg' });
      expect(await other.json()).toEqual({ cancelled: false });
      const own = await asked({ user: 'alice', db: 'pg' });
      expect(await own.json()).toEqual({ cancelled: true });
      expect((await running).outcome).toBe('canceling statement due to user request');
    } finally {
      await client.end();
    }
  });
});
