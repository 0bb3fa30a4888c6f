import { apiPaths } from '@postern/contracts';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createDatabaseRole, registerTestDatabase } from '../../../testing/databases.testkit.js';
import { createRole } from '../../../testing/roles.testkit.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import {
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../../testing/private-postgres.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';

// The browser's SQL console over its WebSocket (the terminal protocol), against a real
// PostgreSQL that trusts only the proxy's database client CA: the same engine path as psql.

let app: TestApp;
let postgres: PrivatePostgres;
let baseUrl: string;
let alice: Record<string, string>;
let outsider: Record<string, string>;
const admin = hostActor('test');

beforeAll(async () => {
  app = await createTestApp();
  const ca = await app.services.dbClientCa();
  postgres = await startPrivatePostgres({ tls: { clientCaPem: ca.certPem } });
  await postgres.sql('create role alice_db login');
  await postgres.sql('create database appdb owner alice_db');
  await registerTestDatabase(app, postgres, { name: 'pg', protocol: 'postgres' });
  await createDatabaseRole(app, 'pg-console', {
    db_users: ['alice_db'],
    db_names: ['appdb'],
    rules: [{ resources: ['session_tracker', 'session'], verbs: ['list', 'read'] }],
  });
  await createRole(app, 'pg-outsider', {
    allow: { db_labels: { env: 'prod' }, db_users: ['*'], db_names: ['*'] },
  });
  baseUrl = (await app.listenOnLoopback()).baseUrl;
  alice = await app.signIn(['pg-console'], 'alice');
  outsider = await app.signIn(['pg-outsider'], 'olga');
}, 120_000);

afterAll(async () => {
  await app?.close();
  await postgres?.destroy();
});

const open = (headers: Record<string, string>, params: object, database = 'pg') =>
  openTerminal({
    baseUrl,
    headers,
    path: apiPaths.databaseConsole('-current-', database),
    params: { term: { w: 100, h: 30 }, ...params },
  });

async function consoleFor(headers = alice) {
  const client = await open(headers, { db_user: 'alice_db', db_name: 'appdb' });
  expect(client.response.status).toBe('ok');
  await client.waitForOutput('appdb=> ');
  return client;
}

describe('the SQL console', () => {
  it('runs multi-line SQL, prints aligned tables and audits each statement', async () => {
    const client = await consoleFor();
    client.type('create table pets (id int, name text);\r');
    await client.waitForOutput('CREATE TABLE');
    client.type("insert into pets values (1, 'Rex'), (22, 'Felix');\r");
    await client.waitForOutput('INSERT 0 2');
    client.type('select id, name\rfrom pets\r');
    await client.waitForOutput('appdb-> ');
    client.type('order by id;\r');
    await client.waitForOutput('(2 rows)');
    expect(client.output()).toContain(
      [' id | name', '----+-------', '  1 | Rex', ' 22 | Felix', '(2 rows)'].join('\r\n'),
    );
    client.type('select 1/0;\r');
    await client.waitForOutput('ERROR:  division by zero');
    await vi.waitFor(async () => {
      const queries = (await auditEventsOf(app, 'TDB02I')).map((event) => event.query);
      expect(queries).toContain('select id, name\nfrom pets\norder by id;');
      const start = (await auditEventsOf(app, 'TDB00I')).find((event) => event.db_name === 'appdb');
      expect(start).toMatchObject({ user: 'alice', db_user: 'alice_db', db_service: 'pg' });
    });
    client.type('\\q\r');
    await client.closed;
  });

  it('recalls history with the arrow keys and lists tables with \\dt', async () => {
    const client = await consoleFor();
    client.type('select 40 + 2 as answer;\r');
    await client.waitForOutput('(1 row)');
    client.type('\x1b[A');
    client.type('\r');
    await vi.waitFor(
      () =>
        expect(client.output().match(/\(1 row\)/g), JSON.stringify(client.output())).toHaveLength(
          2,
        ),
      { timeout: 5_000 },
    );
    client.type('\\dt\r');
    await client.waitForOutput('pets');
    client.close();
    await client.closed;
  });

  it('is a live db session in Active Sessions, recorded and played back', async () => {
    const client = await consoleFor();
    client.type("select 'recorded-' || 7 as mark;\r");
    await client.waitForOutput('recorded-7');
    const listed = await app.server.inject({
      url: apiPaths.activeSessions('-current-'),
      headers: alice,
    });
    const session = (
      listed.json() as { sessions: { id: string; kind: string; login: string }[] }
    ).sessions.find((entry) => entry.kind === 'db' && entry.login === 'alice_db');
    expect(session).toBeDefined();
    client.type('\\q\r');
    await client.closed;
    // Interactive like a shell: the Recordings list offers it for playing.
    await vi.waitFor(async () => {
      const ended = (await auditEventsOf(app, 'T2004I')).find((event) => event.sid === session!.id);
      expect(ended).toMatchObject({ interactive: true, session_recording: 'on' });
    });
    await vi.waitFor(
      async () => {
        const recording = await app.server.inject({
          url: apiPaths.sessionRecording('-current-', session!.id),
          headers: alice,
        });
        expect(recording.statusCode).toBe(200);
        const body = recording.rawPayload;
        const text = (body[0] === 0x1f ? gunzipSync(body) : body).toString('utf8');
        expect(text).toContain('recorded-7');
      },
      { timeout: 15_000 },
    );
  });

  it('Ctrl-C cancels a running statement through the engine’s cancel path', async () => {
    const client = await consoleFor();
    client.type('select pg_sleep(30);\r');
    await vi.waitFor(
      async () => {
        const active = await postgres.sql(
          "select count(*) from pg_stat_activity where query like 'select pg_sleep(30)%' and state = 'active'",
        );
        expect(active.trim()).toBe('1');
      },
      { timeout: 15_000 },
    );
    const started = Date.now();
    client.type('\x03');
    await client.waitForOutput('canceling statement due to user request');
    expect(Date.now() - started).toBeLessThan(3_000);
    client.type('select 5;\r');
    await client.waitForOutput('(1 row)');
    client.close();
  });

  it('refuses a database user the roles do not allow, and a database it may not see', async () => {
    const user = await open(alice, { db_user: 'postgres', db_name: 'appdb' });
    expect((await user.closed).reason).toContain('as database user "postgres"');
    expect(user.output()).toBe('');
    const hidden = await open(outsider, { db_user: 'alice_db', db_name: 'appdb' });
    expect((await hidden.closed).reason).toContain('no database named pg');
    const bearerless = await openTerminal({
      baseUrl,
      headers: { cookie: alice.cookie ?? '' },
      token: 'not-a-token',
      path: apiPaths.databaseConsole('-current-', 'pg'),
      params: { db_user: 'alice_db', db_name: 'appdb', term: { w: 80, h: 24 } },
    });
    expect(bearerless.response).toMatchObject({ status: 'error', message: 'not authenticated' });
    await vi.waitFor(async () => {
      expect(
        (await auditEventsOf(app, 'TDB00W')).some((event) => event.db_user === 'postgres'),
      ).toBe(true);
    });
  });

  it('a lock on the user ends the console within seconds', async () => {
    const client = await consoleFor();
    const lock = await app.services.locks.create(
      { targets: { user: 'alice' }, message: 'incident' },
      admin,
    );
    const closed = await Promise.race([
      client.closed.then(() => 'closed'),
      new Promise((resolve) => setTimeout(() => resolve('still open'), 5_000)),
    ]);
    expect(closed).toBe('closed');
    await app.services.locks.remove(lock.metadata.name, admin);
  });
});
