import { apiPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createDatabaseRole, registerTestDatabase } from '../../../testing/databases.testkit.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import {
  startPrivateMariadb,
  type PrivateMariadb,
} from '../../../testing/private-mariadb.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';
import { requireSubjectFor } from '../mysql/require-subject.js';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';
import { sleepsRunning } from '../../../testing/mariadb-interrupt.testkit.js';

// The browser's SQL console on a MySQL database: the same terminal socket as PostgreSQL's, its
// statements through the MySQL engine (greeting, route checks, audit, KILL translation) to a
// real MariaDB whose accounts sign in only by a certificate of the proxy's database client CA.

let app: TestApp;
let mariadb: PrivateMariadb;
let baseUrl: string;
let alice: Record<string, string>;
const admin = hostActor('test');

beforeAll(async () => {
  app = await createTestApp();
  const ca = await app.services.dbClientCa();
  mariadb = await startPrivateMariadb({ clientCaPem: ca.certPem });
  await mariadb.sql(`
    create database appdb; create database otherdb; create database secretdb;
    create user 'alice_db'@'%' ${requireSubjectFor('alice_db')};
    grant all on appdb.* to 'alice_db'@'%'; grant all on otherdb.* to 'alice_db'@'%';
    grant all on secretdb.* to 'alice_db'@'%';`);
  await registerTestDatabase(app, mariadb, { name: 'maria', protocol: 'mysql' });
  // secretdb is granted in the database but not by the role: Postern is the boundary.
  await createDatabaseRole(app, 'maria-console', {
    db_users: ['alice_db'],
    db_names: ['appdb', 'otherdb'],
  });
  baseUrl = (await app.listenOnLoopback()).baseUrl;
  alice = await app.signIn(['maria-console'], 'alice');
  await vi.waitFor(() => expect(app.services.databases.get('maria')).toBeDefined());
}, 120_000);

afterAll(async () => {
  await app?.close();
  await mariadb?.destroy();
});

const open = (params: object) =>
  openTerminal({
    baseUrl,
    headers: alice,
    path: apiPaths.databaseConsole('-current-', 'maria'),
    params: { term: { w: 100, h: 30 }, ...params },
  });

async function consoleFor() {
  const client = await open({ db_user: 'alice_db', db_name: 'appdb' });
  expect(client.response.status).toBe('ok');
  await client.waitForOutput('appdb=> ');
  return client;
}

describe('the SQL console on MariaDB', () => {
  it('runs statements, prints tables and Query OK as mariadb does, and audits each one', async () => {
    const client = await consoleFor();
    client.type('create table pets (id int, name text);\r');
    await client.waitForOutput('Query OK, 0 rows affected');
    client.type("insert into pets values (1, 'Rex'), (22, 'Felix');\r");
    await client.waitForOutput('Records: 2  Duplicates: 0  Warnings: 0');
    expect(client.output()).toContain('Query OK, 2 rows affected');
    client.type('select id, name\rfrom pets\r');
    await client.waitForOutput('appdb-> ');
    client.type('order by id;\r');
    await client.waitForOutput('(2 rows)');
    expect(client.output()).toContain(
      [' id | name', '----+-------', '  1 | Rex', ' 22 | Felix', '(2 rows)'].join('\r\n'),
    );
    // Several statements in one entry: each result in turn, as the multi-statement text runs.
    client.type('select 1 as one; select 2 as two;\r');
    await client.waitForOutput(' two\r\n-----\r\n   2\r\n(1 row)');
    // A later statement's error comes after the results before it, which stand.
    client.type('select 3 as three; select * from missing;\r');
    await client.waitForOutput(
      " three\r\n-------\r\n     3\r\n(1 row)\r\n\r\nERROR 1146 (42S02): Table 'appdb.missing' doesn't exist",
    );
    // A warning is counted as mariadb counts it, and SHOW WARNINGS says what it was.
    client.type("insert ignore into pets values ('x', 'Bad');\r");
    await client.waitForOutput('Query OK, 1 row affected, 1 warning');
    client.type('show warnings;\r');
    await client.waitForOutput(/Warning \| +1366 \| Incorrect integer value/);
    client.type('\\dt\r');
    await client.waitForOutput('Tables_in_appdb');
    await vi.waitFor(async () => {
      const queries = (await auditEventsOf(app, 'TDB02I')).map((event) => event.query);
      expect(queries).toContain('select id, name\nfrom pets\norder by id;');
      const start = (await auditEventsOf(app, 'TDB00I')).find(
        (event) => event.db_service === 'maria' && event.db_name === 'appdb',
      );
      expect(start).toMatchObject({ user: 'alice', db_user: 'alice_db', db_protocol: 'mysql' });
    });
    client.type('\\q\r');
    await client.closed;
  });

  it('`use` moves the prompt to a granted database and is refused for another', async () => {
    const client = await consoleFor();
    client.type('use otherdb;\r');
    await client.waitForOutput('otherdb=> ');
    client.type('select database() as db;\r');
    await client.waitForOutput(' otherdb\r\n(1 row)');
    client.type('use secretdb;\r');
    await client.waitForOutput('ERROR 1044 (42000)');
    client.type('select database() as db;\r');
    await vi.waitFor(() => expect(client.output().match(/ otherdb\r\n\(1 row\)/g)).toHaveLength(2));
    expect(client.output()).not.toContain('secretdb=> ');
    await vi.waitFor(async () => {
      const refused = (await auditEventsOf(app, 'TDB02W')).find(
        (event) => event.query === 'use secretdb;',
      );
      expect(refused?.error).toContain('secretdb');
    });
    client.close();
    await client.closed;
  });

  it('Ctrl-C kills the running statement through the engine’s KILL translation', async () => {
    const client = await consoleFor();
    client.type('select sleep(30);\r');
    await vi.waitFor(async () => expect(await sleepsRunning((sql) => mariadb.sql(sql))).toBe(1), {
      timeout: 15_000,
    });
    const started = Date.now();
    client.type('\x03');
    await client.waitForOutput(
      'appdb=> select sleep(30);\r\nERROR 1317 (70100): Query execution was interrupted\r\n',
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    client.type('select 5 as five;\r');
    await client.waitForOutput(' five');
    client.close();
  });

  it('refuses a database user or name the roles do not allow, before the database', async () => {
    const user = await open({ db_user: 'root', db_name: 'appdb' });
    expect((await user.closed).reason).toContain('as database user "root"');
    const name = await open({ db_user: 'alice_db', db_name: 'secretdb' });
    expect((await name.closed).reason).toContain('secretdb');
    await vi.waitFor(async () => {
      const refused = await auditEventsOf(app, 'TDB00W');
      expect(refused.some((event) => event.db_user === 'root')).toBe(true);
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
