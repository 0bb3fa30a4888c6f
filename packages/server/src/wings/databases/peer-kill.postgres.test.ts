import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SessionTrackerStore } from '../../modules/sessions/session-tracker.store.js';
import type { TestApp } from '../../testing/app-harness.testkit.js';
import { auditEventsOf } from '../../testing/audit-events.testkit.js';
import { createDatabaseRole, registerTestDatabase } from '../../testing/databases.testkit.js';
import { sleepsRunning } from '../../testing/mariadb-interrupt.testkit.js';
import { startPrivateMariadb, type PrivateMariadb } from '../../testing/private-mariadb.testkit.js';
import {
  dbLoginTls,
  startTwoProxies,
  until,
  type TwoProxies,
} from '../../testing/two-proxies.testkit.js';
import { requireSubjectFor } from './mysql/require-subject.js';
import { nativeListenerOf } from '../../testing/native-listeners.testkit.js';
import type { NativeListener } from './native-listener.js';

// Two proxies on one cluster backend, each with its native MySQL listener, as behind a load
// balancer. A query runs through proxy B; the client's `KILL QUERY <id>` (what the mariadb client
// sends on a second connection at Ctrl-C) lands on proxy A, which did not issue that id and asks
// B for the session's thread at the server. A real MariaDB is behind both; every connection is
// to loopback.

let proxies: TwoProxies;
let a: TestApp;
let b: TestApp;
const listeners: Record<'a' | 'b', NativeListener | undefined> = { a: undefined, b: undefined };
let mariadb: PrivateMariadb;
const tls: Record<'alice' | 'bob', { ca: string; cert: string; key: string } | undefined> = {
  alice: undefined,
  bob: undefined,
};

beforeAll(async () => {
  proxies = await startTwoProxies();
  ({ a, b } = proxies);
  const clientCa = await b.services.dbClientCa();
  mariadb = await startPrivateMariadb({ clientCaPem: clientCa.certPem });
  await mariadb.sql(`
    create database appdb;
    create user 'alice_db'@'%' ${requireSubjectFor('alice_db')};
    grant all on appdb.* to 'alice_db'@'%';`);
  await registerTestDatabase(b, mariadb, { name: 'maria', protocol: 'mysql' });
  await createDatabaseRole(b, 'maria-user', { db_users: ['alice_db'], db_names: ['appdb'] });
  await b.services.users.create({ name: 'alice', roles: ['maria-user'] }, 'test');
  await b.services.users.create({ name: 'bob', roles: ['maria-user'] }, 'test');
  await until(() => a.context.access.users.get('bob') !== undefined, 'proxy A to see the users');
  listeners.a = await nativeListenerOf(a, 'mysql');
  listeners.b = await nativeListenerOf(b, 'mysql');
  const route = { db: 'maria', dbUser: 'alice_db', dbName: 'appdb' };
  for (const name of ['alice', 'bob'] as const) {
    tls[name] = await dbLoginTls(b, { name, roles: ['maria-user'] }, route);
  }
}, 120_000);

afterAll(async () => {
  await listeners.a?.stop();
  await listeners.b?.stop();
  await proxies?.close();
  await mariadb?.destroy();
});

/** A database session's tracker that proxy `app` holds, as the others see it. */
const trackerOf = (app: TestApp) =>
  a.context.hub.list().find((t) => t.kind === 'db' && t.proxyId === app.context.hub.proxyId);

/** A driver's connection through one proxy's listener, as `who`. */
const through = (listener: NativeListener, who: 'alice' | 'bob') =>
  mysql.createConnection({
    host: '127.0.0.1',
    port: listener.address.port,
    user: 'alice_db',
    database: 'appdb',
    ssl: tls[who]!,
  });

/** alice's `select sleep(30)` through B, running at the server, with the id B gave her client. */
async function sleepingThroughB() {
  const session = await through(listeners.b!, 'alice');
  await until(
    () => a.context.hub.list().some((t) => t.kind === 'db' && t.proxyId === b.context.hub.proxyId),
    'the session’s tracker on proxy A',
  );
  const started = Date.now();
  const outcome = session.query('select sleep(30)').then(
    ([rows]) => ({ rows, ms: Date.now() - started }),
    (error: Error) => ({ rows: error.message, ms: Date.now() - started }),
  );
  await vi.waitFor(
    async () => expect(await sleepsRunning((statement) => mariadb.sql(statement))).toBe(1),
    {
      timeout: 10_000,
    },
  );
  return { session, id: session.threadId!, outcome };
}

describe('a MySQL kill that lands on another proxy of the cluster', () => {
  it('kills the query the other proxy holds, for the same user on the same database', async () => {
    const { session, id, outcome } = await sleepingThroughB();
    // A proxy that died with a database session still lingers in the trackers; it answers
    // nothing (a socket that takes the request and stays silent), and is not waited for.
    const silent = createServer(() => undefined).listen(0, '127.0.0.1');
    await once(silent, 'listening');
    const ghost = { ...trackerOf(b)!, id: 'ghost-session', proxyId: 'ghost-proxy' };
    ghost.proxyAddr = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    await new SessionTrackerStore(a.backend).put(ghost, 60_000, Date.now());
    await until(() => a.context.hub.tracker('ghost-session') !== undefined, 'the ghost tracker');
    const killer = await through(listeners.a!, 'alice');
    try {
      const asked = Date.now();
      await killer.query(`KILL QUERY ${id}`);
      expect(Date.now() - asked).toBeLessThan(1500);
      const { rows, ms } = await outcome;
      expect(rows).toBe('Query execution was interrupted');
      expect(ms).toBeLessThan(5000);
      expect(await sleepsRunning((statement) => mariadb.sql(statement))).toBe(0);
      // The session goes on, and the kill is audited on the proxy that took it.
      expect(await session.query('select 1 as one').then(([r]) => r)).toEqual([{ one: 1 }]);
      await vi.waitFor(async () => {
        const kills = await auditEventsOf(a, 'TDB02I');
        expect(kills.some((event) => event.query === `KILL QUERY ${id}`)).toBe(true);
      });
    } finally {
      await killer.end();
      await session.end();
      await new SessionTrackerStore(a.backend).remove('ghost-session');
      silent.close();
    }
  });

  it('refuses another Postern user’s kill as the server would, and the query runs on', async () => {
    const { session, id, outcome } = await sleepingThroughB();
    const killer = await through(listeners.a!, 'bob');
    try {
      const refused = await killer.query(`KILL QUERY ${id}`).then(
        () => 'killed',
        (error: { errno?: number; message: string }) => `${error.errno}: ${error.message}`,
      );
      expect(refused).toBe(`1094: Unknown thread id: ${id}`);
      // The killer's connection answers in order after the refusal.
      expect(await killer.query('select 2 as two').then(([r]) => r)).toEqual([{ two: 2 }]);
      expect(await sleepsRunning((statement) => mariadb.sql(statement))).toBe(1);
      // Her own kill through the proxy holding it still works.
      const own = await through(listeners.b!, 'alice');
      await own.query(`KILL QUERY ${id}`);
      await own.end();
      expect((await outcome).rows).toBe('Query execution was interrupted');
    } finally {
      await killer.end();
      await session.end();
    }
  });
});
