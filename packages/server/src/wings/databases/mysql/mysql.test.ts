import { apiPaths } from '@postern/contracts';
import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import mysql from 'mysql2/promise';
import { runClient } from '../../../testing/run-client.testkit.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { listenThroughProxy, type TunnelListener } from '../../../cli/login/tunnel-listener.js';
import { createDatabaseRole, registerTestDatabase } from '../../../testing/databases.testkit.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { signedInHome } from '../../../testing/cli-home.testkit.js';
import {
  startPrivateMariadb,
  type PrivateMariadb,
} from '../../../testing/private-mariadb.testkit.js';
import { clientLaunches, connectionUri } from '../cli/db-client.js';
import { packet } from './my-wire.js';
import { requireSubjectFor } from './require-subject.js';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';
import { interruptedMariadb, sleepsRunning } from '../../../testing/mariadb-interrupt.testkit.js';

// A real MariaDB 10.11 (TLS on, accounts `REQUIRE SUBJECT`, trusting only the proxy's database
// client CA), reached with the real `mariadb` client and the `mysql2` driver through
// `postern proxy db`'s listener and a listening Postern: the proxy signs in by certificate.

const run = promisify(execFile);
let app: TestApp;
let mariadb: PrivateMariadb;
const homes: string[] = [];
let listener: TunnelListener;
let loaderListener: TunnelListener;

async function listenAs(user: string, roles: string[], port: number) {
  const { home } = await signedInHome(app, port, user, roles);
  homes.push(home);
  return listenThroughProxy(
    { POSTERN_HOME: home },
    { name: 'maria', path: apiPaths.databaseConnect('maria') },
    0,
  );
}

beforeAll(async () => {
  app = await createTestApp();
  const ca = await app.services.dbClientCa();
  mariadb = await startPrivateMariadb({ clientCaPem: ca.certPem });
  await mariadb.sql(`
    create database appdb; create database otherdb; create database secretdb;
    create user 'alice_db'@'%' ${requireSubjectFor('alice_db')};
    create user 'shared'@'%' ${requireSubjectFor('shared')};
    create user 'pw_user'@'%' identified by 'secret';
    grant all on appdb.* to 'alice_db'@'%'; grant all on otherdb.* to 'alice_db'@'%';
    grant all on secretdb.* to 'alice_db'@'%'; grant all on appdb.* to 'shared'@'%';
    grant file on *.* to 'alice_db'@'%';`);
  await registerTestDatabase(app, mariadb, { name: 'maria', protocol: 'mysql' });
  const role = (name: string, options: Record<string, unknown> = {}) =>
    createDatabaseRole(
      app,
      name,
      { db_users: ['alice_db', 'shared', 'pw_user'], db_names: ['appdb', 'otherdb'] },
      options,
    );
  await role('maria-users');
  await role('maria-loaders', { mysql_load_data_local: true });
  await app.services.users.create({ name: 'alice', roles: ['maria-users'] }, 'test');
  await app.services.users.create({ name: 'lou', roles: ['maria-loaders'] }, 'test');
  const { port } = await app.listenOnLoopback();
  await vi.waitFor(() => expect(app.services.databases.get('maria')).toBeDefined());
  listener = await listenAs('alice', ['maria-users'], port);
  loaderListener = await listenAs('lou', ['maria-loaders'], port);
}, 120_000);

afterAll(async () => {
  await listener?.close();
  await loaderListener?.close();
  await app?.close();
  await mariadb?.destroy();
  await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
});

/** The real client through a listener, in batch mode; resolves whatever its exit code. */
function mariadbClient(user: string, database: string, statement: string, extra: string[] = []) {
  const args = [
    '--no-defaults',
    '-h',
    '127.0.0.1',
    '-P',
    String(listener.port),
    '-u',
    user,
    '--skip-ssl',
    '-N',
    '-B',
    ...(database ? ['-D', database] : []),
    ...extra,
    '-e',
    statement,
  ];
  return runClient('mariadb', args);
}

const driver = (user = 'alice_db', database = 'appdb', port = listener.port) =>
  mysql.createConnection({ host: '127.0.0.1', port, user, database, connectTimeout: 10_000 });

describe('MySQL/MariaDB through Postern', () => {
  it('the mariadb client signs in as the db user by certificate, over TLS to the database', async () => {
    const result = await mariadbClient(
      'alice_db',
      'appdb',
      "select current_user(), database(), variable_value from information_schema.session_status where variable_name = 'Ssl_version'",
    );
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('alice_db@%\tappdb\tTLSv1.3');
  });

  it('postern db connect starts mariadb with arguments that reach the database', async () => {
    const [mariadbLaunch] = clientLaunches('mysql');
    expect(mariadbLaunch?.command).toBe('mariadb');
    const args = mariadbLaunch!.args(listener.port, { dbUser: 'alice_db', dbName: 'appdb' });
    const { stdout } = await run('mariadb', [...args, '-N', '-B', '-e', 'select database()']);
    expect(stdout.trim()).toBe('appdb');
    expect(connectionUri('mysql', 3306, { dbUser: 'alice_db' })).toBe(
      'mysql://alice_db@127.0.0.1:3306?ssl-mode=DISABLED',
    );
  });

  it('refuses a db user or a database the roles do not allow with the server’s own errors', async () => {
    const user = await mariadbClient('bob_db', 'appdb', 'select 1');
    expect(user.code).toBe(1);
    expect(user.stderr).toContain(
      'ERROR 1045 (28000): access to db denied: alice may not connect to maria as database user "bob_db"',
    );
    const name = await mariadbClient('alice_db', 'secretdb', 'select 1');
    expect(name.stderr).toContain(
      'ERROR 1044 (42000): access to db denied: alice may not open database "secretdb" on maria',
    );
    await vi.waitFor(async () => {
      const denied = await auditEventsOf(app, 'TDB00W');
      expect(denied.map((event) => [event.db_user, event.db_name])).toEqual(
        expect.arrayContaining([
          ['bob_db', 'appdb'],
          ['alice_db', 'secretdb'],
        ]),
      );
    });
  });

  it('checks `use` (COM_INIT_DB) against the roles inside the session', async () => {
    const allowed = await mariadbClient('alice_db', '', 'use otherdb; select database()');
    expect(allowed.stdout.trim()).toBe('otherdb');
    const refused = await mariadbClient('alice_db', 'appdb', 'use secretdb; select database()');
    expect(refused.stderr).toContain('ERROR 1044 (42000)');
    expect(refused.stderr).toContain('may not open database "secretdb"');
    await vi.waitFor(async () => {
      expect(
        (await auditEventsOf(app, 'TMY06I')).some((event) => event.schema_name === 'otherdb'),
      ).toBe(true);
    });
  });

  it('judges a `USE` a driver sends as a statement of its own as it judges COM_INIT_DB', async () => {
    const connection = await driver();
    try {
      await connection.query('USE `otherdb`;');
      expect((await connection.query('select database() as db'))[0]).toEqual([{ db: 'otherdb' }]);
      await expect(connection.query('use secretdb')).rejects.toMatchObject({
        errno: 1044,
        message: expect.stringContaining('may not open database "secretdb"'),
      });
      // Refused, and the session goes on where it was.
      expect((await connection.query('select database() as db'))[0]).toEqual([{ db: 'otherdb' }]);
    } finally {
      await connection.end();
    }
    await vi.waitFor(async () => {
      const refused = (await auditEventsOf(app, 'TDB02W')).find(
        (event) => event.query === 'use secretdb',
      );
      expect(refused?.error).toContain('secretdb');
    });
  });

  it('says so when the account wants a password instead of the certificate', async () => {
    const result = await mariadbClient('pw_user', '', 'select 1');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ERROR 1045 (28000): Access denied for user');
    expect(result.stderr).toContain('REQUIRE SUBJECT');
  });

  it('runs prepared statements over the binary protocol and audits prepare and execute', async () => {
    const connection = await driver();
    const marker = `marker-${Date.now()}`;
    await connection.query(
      'create table if not exists typed (n int, t text, d datetime, f double)',
    );
    await connection.execute('insert into typed values (?, ?, ?, ?)', [
      42,
      marker,
      new Date('2026-11-24T10:20:30Z'),
      null,
    ]);
    const [rows] = await connection.execute<mysql.RowDataPacket[]>(
      'select n + 1 as n, t from typed where t = ?',
      [marker],
    );
    expect(rows).toEqual([{ n: 43, t: marker }]);
    await connection.query(`select 'text-${marker}'`);
    await connection.end();
    await vi.waitFor(async () => {
      const prepare = (await auditEventsOf(app, 'TMY00I')).find((event) =>
        String(event.query).startsWith('insert into typed'),
      );
      expect(prepare).toMatchObject({ user: 'alice', db_user: 'alice_db', db_name: 'appdb' });
      const executes = (await auditEventsOf(app, 'TMY01I')).filter((event) =>
        (event.parameters as string[]).includes(marker),
      );
      expect(executes.map((event) => event.query).sort()).toEqual([
        'insert into typed values (?, ?, ?, ?)',
        'select n + 1 as n, t from typed where t = ?',
      ]);
      const execute = executes.find((event) => String(event.query).startsWith('insert'));
      expect(execute?.parameters).toEqual([
        '42',
        marker,
        expect.stringMatching(/^2026-11-24 /),
        'NULL',
      ]);
      const text = (await auditEventsOf(app, 'TDB02I')).find(
        (event) => event.query === `select 'text-${marker}'`,
      );
      expect(text?.sid).toBe(prepare!.sid);
      const ended = (await auditEventsOf(app, 'TDB01I')).find(
        (event) => event.sid === prepare!.sid,
      );
      expect(ended).toMatchObject({ db_service: 'maria', db_protocol: 'mysql', reason: 'closed' });
    });
  });

  it('refuses COM_CHANGE_USER inside a session and keeps the session', async () => {
    const connection = await driver();
    await expect(connection.changeUser({ user: 'shared' })).rejects.toThrow(
      /refuses COM_CHANGE_USER/,
    );
    await connection.end().catch(() => undefined);
    await vi.waitFor(async () => {
      expect(
        (await auditEventsOf(app, 'TDB02W')).some((event) => event.query === 'COM_CHANGE_USER'),
      ).toBe(true);
    });
  });

  it('refuses LOAD DATA LOCAL unless a role allows it', async () => {
    const file = path.join(tmpdir(), `postern-infile-${process.pid}.tsv`);
    await writeFile(file, '1\tone\n2\ttwo\n');
    const load = `create table if not exists loaded (n int, t text); load data local infile '${file}' into table loaded; select count(*) from loaded`;
    const refused = await mariadbClient('alice_db', 'appdb', load, ['--local-infile=1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/ERROR 4166|local infile/i);
    const allowed = await run('mariadb', [
      '--no-defaults',
      '-h',
      '127.0.0.1',
      '-P',
      String(loaderListener.port),
      '-u',
      'alice_db',
      '--skip-ssl',
      '-N',
      '-B',
      '-D',
      'appdb',
      '--local-infile=1',
      '-e',
      load,
    ]);
    expect(allowed.stdout.trim()).toBe('2');
    await rm(file, { force: true });
  });

  it('Ctrl-C in the mariadb client kills the running query through the proxy', async () => {
    const sql = (statement: string) => mariadb.sql(statement);
    const args = ['--no-defaults', '-h', '127.0.0.1', '-P', String(listener.port)];
    const stopped = await interruptedMariadb(
      [...args, '-u', 'alice_db', '--skip-ssl', '-D', 'appdb'],
      sql,
    );
    expect(stopped.stoppedMs).toBeLessThan(5_000);
    await vi.waitFor(async () => expect(await sleepsRunning(sql)).toBe(0));
    expect(stopped.output).toMatch(/Query execution was interrupted|killed/i);
  });

  it('ends a malformed client’s connection with an error packet and an audit event', async () => {
    const socket = connect({ host: '127.0.0.1', port: listener.port });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    await vi.waitFor(() => expect(Buffer.concat(received).length).toBeGreaterThan(4));
    // A handshake response too short to hold even its flags.
    socket.write(packet(1, Buffer.from([0x00, 0x02])));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(Buffer.concat(received).toString('latin1')).toContain('protocol violation');
    // The proxy still serves the next client.
    expect((await mariadbClient('alice_db', 'appdb', 'select 7')).stdout.trim()).toBe('7');
  });

  it('a lock on the user ends a running query’s session within seconds', async () => {
    const connection = await driver('shared', 'appdb');
    const running = connection.query('select sleep(30)').then(
      () => 'finished',
      (error: Error) => error.message,
    );
    await vi.waitFor(
      async () => {
        const count = await mariadb.sql(
          "select count(*) from information_schema.processlist where user = 'shared' and info = 'select sleep(30)'",
        );
        expect(count.trim()).toBe('1');
      },
      { timeout: 15_000 },
    );
    const lock = await app.services.locks.create(
      { targets: { user: 'alice' }, message: 'incident' },
      hostActor('test'),
    );
    const locked = Date.now();
    const outcome = await running;
    expect(Date.now() - locked).toBeLessThan(5_000);
    expect(outcome).not.toBe('finished');
    connection.destroy();
    const refused = await mariadbClient('alice_db', 'appdb', 'select 1');
    expect(refused.code).not.toBe(0);
    await app.services.locks.remove(lock.metadata.name, hostActor('test'));
  });
});

describe("Discover's connection test against MariaDB", () => {
  it('signs in as the database user and opens the database, or says which one it could not', async () => {
    await createDatabaseRole(app, 'maria-tester', {
      db_users: ['alice_db', 'shared', 'pw_user'],
      db_names: ['appdb', 'otherdb', 'nosuchdb'],
      rules: [{ resources: ['connection_diagnostic'], verbs: ['create', 'read'] }],
    });
    const tester = await app.signIn(['maria-tester'], 'tess');
    const diagnose = async (database_user: string, database_name: string) => {
      const res = await app.server.inject({
        method: 'POST',
        url: apiPaths.connectionDiagnostics('test-cluster'),
        payload: { resource_kind: 'db', resource_name: 'maria', database_user, database_name },
        headers: tester,
      });
      expect(res.statusCode, res.body).toBe(200);
      const { traces, message } = res.json() as {
        traces: { trace_type: string; status: string }[];
        message: string;
      };
      return { steps: traces.slice(3).map((t) => `${t.trace_type}:${t.status}`), message };
    };
    expect((await diagnose('alice_db', 'appdb')).steps).toEqual([
      'database_db_user:success',
      'database_db_name:success',
    ]);
    // A password account, not REQUIRE SUBJECT: the certificate does not sign it in.
    const passworded = await diagnose('pw_user', 'appdb');
    expect(passworded.steps).toEqual(['database_db_user:failed']);
    expect(passworded.message).toMatch(/pw_user/);
    const missing = await diagnose('alice_db', 'nosuchdb');
    expect(missing.steps).toEqual(['database_db_user:success', 'database_db_name:failed']);
    expect(missing.message).toMatch(/nosuchdb/);
    // A database the account has no grant on.
    const ungranted = await diagnose('shared', 'otherdb');
    expect(ungranted.steps).toEqual(['database_db_user:success', 'database_db_name:failed']);
  });
});
