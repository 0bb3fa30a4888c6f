import { execFile } from 'node:child_process';
import mysql from 'mysql2/promise';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { runClient } from '../../../testing/run-client.testkit.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabaseRole, registerTestDatabase } from '../../../testing/databases.testkit.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { signedInHome } from '../../../testing/cli-home.testkit.js';
import {
  startPrivateMariadb,
  type PrivateMariadb,
} from '../../../testing/private-mariadb.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { createSessionMfaRole } from '../../../testing/roles.testkit.js';
import { loginCommand, nativeMysqlArgs } from '../cli/db-client.js';
import { listenerIdentity } from '../listener-identity.js';
import type { NativeListener } from '../native-listener.js';
import { startWingListeners } from '../../run-listeners.js';
import type { RunningListener } from '../../wing.js';
import { startMysqlListener, type MysqlListenerDeps } from './my-listener.js';
import { MysqlPacketReader } from './my-reader.js';
import { requireSubjectFor } from './require-subject.js';
import {
  Capability,
  handshakeResponse,
  offeredCapabilities,
  packet,
  sslRequest,
} from './my-wire.js';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';
import { interruptedMariadb, sleepsRunning } from '../../../testing/mariadb-interrupt.testkit.js';

// The native MySQL listener: the real mariadb client straight to the proxy with TLS and a
// `postern db login` certificate naming one route, no tunnel process in between; a real MariaDB
// behind, which trusts only the proxy's database client CA.

const run = promisify(execFile);
let app: TestApp;
let mariadb: PrivateMariadb;
let home: string;
let listener: NativeListener;
/** The wing's own listeners, as `postern start` runs them (mysql_addr set). */
let wingListeners: RunningListener[];
let files: { cert: string; key: string; ca: string };
let scratch: string;
let draining = false;

beforeAll(async () => {
  app = await createTestApp({ mysqlAddr: '127.0.0.1:0' });
  const clientCa = await app.services.dbClientCa();
  mariadb = await startPrivateMariadb({ clientCaPem: clientCa.certPem });
  await mariadb.sql(`
    create database appdb; create database otherdb;
    create user 'alice_db'@'%' ${requireSubjectFor('alice_db')};
    create user 'shared'@'%' ${requireSubjectFor('shared')};
    grant all on appdb.* to 'alice_db'@'%'; grant all on otherdb.* to 'alice_db'@'%';
    grant all on appdb.* to 'shared'@'%';`);
  await registerTestDatabase(app, mariadb, { name: 'maria', protocol: 'mysql' });
  await createDatabaseRole(app, 'maria-native', {
    db_users: ['alice_db', 'shared'],
    db_names: ['appdb', 'otherdb'],
  });
  await app.services.users.create({ name: 'alice', roles: ['maria-native'] }, 'test');
  const { port } = await app.listenOnLoopback();
  ({ home } = await signedInHome(app, port, 'alice', ['maria-native']));
  const deps: MysqlListenerDeps = {
    accessCa: await app.services.dbAccessCa(),
    serverNames: ['localhost', '127.0.0.1'],
    databases: app.services.databases,
    identify: listenerIdentity(app.services.access, app.services.lockWatcher),
    engine: {
      ca: clientCa,
      dial: app.services.dialDatabase,
      threads: app.services.mysqlThreads,
    },
    sessions: app.services.dbSessions,
    draining: () => draining,
  };
  listener = await startMysqlListener(deps, { host: '127.0.0.1', port: 0 });
  wingListeners = await startWingListeners(app, () => undefined);
  await vi.waitFor(() => expect(app.services.databases.get('maria')).toBeDefined());
  const login = await loginCommand({ POSTERN_HOME: home }, 'maria', {
    dbUser: 'alice_db',
    dbName: 'appdb',
  });
  expect(login.lines[0]).toContain('Logged in to database maria as alice_db, database appdb');
  files = login.files;
  scratch = await mkdtemp(path.join(tmpdir(), 'postern-native-mysql-'));
}, 120_000);

afterAll(async () => {
  await listener?.stop();
  for (const running of wingListeners ?? []) await running.stop();
  await app?.close();
  await mariadb?.destroy();
  if (home) await rm(home, { recursive: true, force: true });
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The mariadb client's arguments as `postern db login` prints them, with overrides last. */
const args = (overrides: string[] = [], dbName = 'appdb') => [
  '--no-defaults',
  ...nativeMysqlArgs('127.0.0.1', String(listener.address.port), files, 'alice_db', dbName),
  ...overrides,
];

function mariadbClient(extra: string[], statement: string, dbName?: string) {
  return runClient('mariadb', [...args(extra, dbName), '-N', '-B', '-e', statement]);
}

describe('the native MySQL listener', () => {
  it('lets the mariadb client in with the db login certificate, verified both ways', async () => {
    const result = await mariadbClient(
      [],
      "select current_user(), database(), variable_value from information_schema.session_status where variable_name = 'Ssl_version'",
    );
    expect(result.stderr).toBe('');
    // The database's own TLS: the proxy signed in by certificate, over TLS on that leg too.
    expect(result.stdout.trim()).toBe('alice_db@%\tappdb\tTLSv1.3');
    await vi.waitFor(async () => {
      const start = (await auditEventsOf(app, 'TDB00I')).find(
        (event) => event.db_service === 'maria',
      );
      expect(start).toMatchObject({ user: 'alice', db_user: 'alice_db', db_protocol: 'mysql' });
    });
  });

  it('runs with mysql_addr, and db login prints the mariadb command that reaches it', async () => {
    const bound = app.context.addresses.of('mysql');
    expect(bound?.port).toBeGreaterThan(0);
    const login = await loginCommand({ POSTERN_HOME: home }, 'maria', {
      dbUser: 'alice_db',
      dbName: 'appdb',
    });
    // The proxy's public host (proxy.test here) and the port the listener bound.
    const command = login.lines.at(-1)!.trim();
    expect(command).toBe(
      `mariadb ${nativeMysqlArgs('proxy.test', String(bound!.port), login.files, 'alice_db', 'appdb').join(' ')}`,
    );
    const printed = command
      .split(' ')
      .slice(1)
      .map((arg) => arg.replace('=proxy.test', '=127.0.0.1'));
    const { stdout } = await run('mariadb', [
      '--no-defaults',
      ...printed,
      '-N',
      '-e',
      'select database()',
    ]);
    expect(stdout.trim()).toBe('appdb');
  });

  it('prints the mariadb command for the listener when a proxy runs one', async () => {
    expect(nativeMysqlArgs('proxy.example', '3036', files, 'alice_db', 'appdb')).toEqual([
      '--host=proxy.example',
      '--port=3036',
      `--ssl-ca=${files.ca}`,
      `--ssl-cert=${files.cert}`,
      `--ssl-key=${files.key}`,
      '--ssl-verify-server-cert',
      '--user=alice_db',
      '--database=appdb',
    ]);
  });

  it('takes a ClientHello sent in the same segment as the SSLRequest, as clients may', async () => {
    const [cert, key, ca] = await Promise.all(
      [files.cert, files.key, files.ca].map((file) => readFile(file, 'utf8')),
    );
    const raw = connect({ host: '127.0.0.1', port: listener.address.port });
    const clear = new MysqlPacketReader(raw);
    await clear.packet(); // the greeting
    clear.release();
    const capabilities = offeredCapabilities & ~Capability.connectAttrs;
    // Corked: the SSLRequest and the TLS ClientHello leave together, one write.
    raw.cork();
    raw.write(packet(1, sslRequest(capabilities, 1 << 24, 45)));
    const tls = tlsConnect({ socket: raw, cert, key, ca, servername: 'localhost' });
    process.nextTick(() => raw.uncork());
    await new Promise((resolve, reject) => {
      tls.once('secureConnect', resolve);
      tls.once('error', reject);
    });
    const response = {
      capabilities,
      maxPacket: 1 << 24,
      charset: 45,
      user: 'alice_db',
      authResponse: Buffer.alloc(0),
      database: 'appdb',
      authPlugin: 'mysql_native_password',
      attributes: Buffer.alloc(0),
    };
    tls.write(packet(2, handshakeResponse(response)));
    const answer = await new MysqlPacketReader(tls).packet();
    expect(answer.payload[0], answer.payload.toString()).toBe(0x00); // OK: signed in
    tls.destroy();
  });

  it('lets a driver in again when it resumes its TLS session, as mysql2 does', async () => {
    const [cert, key, ca] = await Promise.all(
      [files.cert, files.key, files.ca].map((file) => readFile(file, 'utf8')),
    );
    // One options object for every connection, as a pool has: mysql2 resumes through it.
    const ssl = { cert, key, ca };
    for (let n = 1; n <= 3; n += 1) {
      const connection = await mysql.createConnection({
        host: '127.0.0.1',
        port: listener.address.port,
        user: 'alice_db',
        database: 'appdb',
        ssl,
      });
      const [rows] = await connection.query(`select ${n} as n`);
      expect(rows).toEqual([{ n }]);
      await connection.end();
    }
  });

  it('refuses a client that skips TLS, or brings no certificate', async () => {
    const attempt = (tls: string[]) =>
      run(
        'mariadb',
        [
          '--no-defaults',
          '--host=127.0.0.1',
          `--port=${listener.address.port}`,
          ...tls,
          '--user=alice_db',
          '-e',
          'select 1',
        ],
        { timeout: 30_000 },
      ).catch((error: { stderr?: string }) => ({ stderr: error.stderr ?? '' }));
    const plain = await attempt(['--skip-ssl']);
    expect(plain.stderr).toContain(
      "ERROR 1045 (28000): Postern's MySQL listener takes TLS with a client certificate only",
    );
    const bare = await attempt([`--ssl-ca=${files.ca}`]);
    expect(bare.stderr).toContain('(no client certificate)');
  });

  it('refuses the certificate for another database user or database', async () => {
    const user = await mariadbClient(['--user=shared'], 'select 1');
    expect(user.stderr).toContain(
      'ERROR 1045 (28000): this certificate is for database user "alice_db" and database "appdb" on maria',
    );
    const name = await mariadbClient([], 'select 1', 'otherdb');
    expect(name.stderr).toContain('ERROR 1044 (42000): this certificate is for database user');
    // No default database opens none, which the certificate allows; `use` is judged by roles.
    const none = await mariadbClient([], 'use otherdb; select database()', '');
    expect(none.stdout.trim()).toBe('otherdb');
  });

  it('takes a login with no default database, and refuses one named later at connect', async () => {
    const login = await loginCommand({ POSTERN_HOME: home }, 'maria', { dbUser: 'alice_db' });
    expect(login.lines[0]).toContain('as alice_db, database ,');
    const bare = (dbName: string) =>
      run(
        'mariadb',
        [
          '--no-defaults',
          ...nativeMysqlArgs(
            '127.0.0.1',
            String(listener.address.port),
            login.files,
            'alice_db',
            dbName,
          ),
          '-N',
          '-e',
          'select database() is null',
        ],
        { timeout: 30_000 },
      ).catch((error: { stdout?: string; stderr?: string }) => ({
        stdout: error.stdout ?? '',
        stderr: error.stderr ?? '',
      }));
    expect((await bare('')).stdout.trim()).toBe('1');
    expect((await bare('appdb')).stderr).toContain(
      'ERROR 1044 (42000): this certificate is for database user "alice_db" on maria',
    );
    // The db login files are the login's, one set per database: put alice's appdb ones back.
    await loginCommand({ POSTERN_HOME: home }, 'maria', { dbUser: 'alice_db', dbName: 'appdb' });
  });

  it('refuses a certificate of the database client CA (the proxy’s own kind)', async () => {
    const own = await (await app.services.dbClientCa()).clientCertificate('alice_db');
    const cert = path.join(scratch, 'own.crt');
    const key = path.join(scratch, 'own.key');
    await writeFile(cert, own.certPem);
    await writeFile(key, own.keyPem, { mode: 0o600 });
    const result = await mariadbClient([`--ssl-cert=${cert}`, `--ssl-key=${key}`], 'select 1');
    expect(result.stderr).toContain(
      "(the certificate is not from this cluster's database access CA)",
    );
  });

  it('refuses a leaf’s route of another protocol, or when it reaches no leaves', async () => {
    const access = await app.services.dbAccessCa();
    const route = { user: 'alice', db: 'maria', dbUser: 'alice_db', dbName: 'appdb' };
    const tryWith = async (leafRoute: object, name: string) => {
      const issued = await access.routeCertificate({ ...route, ...leafRoute }, 60_000);
      const cert = path.join(scratch, `${name}.crt`);
      const key = path.join(scratch, `${name}.key`);
      await writeFile(cert, issued.certPem);
      await writeFile(key, issued.keyPem, { mode: 0o600 });
      return (await mariadbClient([`--ssl-cert=${cert}`, `--ssl-key=${key}`], 'select 1')).stderr;
    };
    // A route of an earlier release names no protocol: it was PostgreSQL's.
    expect(await tryWith({ cluster: 'leaf-x' }, 'leaf-pg')).toContain(
      'ERROR 1049 (42000): no MySQL database named maria on leaf-x',
    );
    // This listener was started without the trusted-clusters side (my-leaf.test.ts has it).
    expect(await tryWith({ cluster: 'leaf-x', protocol: 'mysql' }, 'leaf-my')).toContain(
      "ERROR 1049 (42000): this proxy does not reach trusted clusters' databases",
    );
  });

  it('while the proxy drains, refuses new work as a server shutting down, but lets a kill in', async () => {
    const [cert, key, ca] = await Promise.all(
      [files.cert, files.key, files.ca].map((file) => readFile(file, 'utf8')),
    );
    const connect = () =>
      mysql.createConnection({
        host: '127.0.0.1',
        port: listener.address.port,
        user: 'alice_db',
        database: 'appdb',
        ssl: { cert, key, ca },
      });
    const sql = (statement: string) => mariadb.sql(statement);
    const running = await connect();
    const outcome = running.query('select sleep(30)').then(
      () => 'finished',
      (error: Error) => error.message,
    );
    await vi.waitFor(async () => expect(await sleepsRunning(sql)).toBe(1));
    draining = true;
    try {
      const refused = await mariadbClient([], 'select 1');
      expect(refused.stderr).toContain(
        'ERROR 1053 (08S01) at line 1: this proxy is shutting down; reconnect',
      );
      // The mariadb client's Ctrl-C: a new connection that only kills.
      const killer = await connect();
      await killer.query(`KILL QUERY ${running.threadId}`);
      expect(await outcome).toBe('Query execution was interrupted');
      await killer.end();
    } finally {
      draining = false;
    }
    await running.end();
    expect((await mariadbClient([], 'select 1')).stdout.trim()).toBe('1');
  });

  it('refuses a locked user at the next connection', async () => {
    const admin = hostActor('test');
    const lock = await app.services.locks.create({ targets: { user: 'alice' } }, admin);
    try {
      await vi.waitFor(async () => {
        const refused = await mariadbClient([], 'select 1');
        expect(refused.stderr).toContain('ERROR 1045 (28000): access denied: alice is locked');
      });
    } finally {
      await app.services.locks.remove(lock.metadata.name, admin);
    }
    await vi.waitFor(async () =>
      expect((await mariadbClient([], 'select 1')).stdout.trim()).toBe('1'),
    );
  });

  it('refuses the mariadb client when the roles ask for a per-session MFA check', async () => {
    await createSessionMfaRole(app, 'maria-checked');
    await app.services.users.update(
      { name: 'alice', roles: ['maria-native', 'maria-checked'] },
      'test',
    );
    try {
      await vi.waitFor(async () => {
        const refused = await mariadbClient([], 'select 1');
        expect(refused.stderr).toContain('ERROR 1045 (28000): access denied:');
        expect(refused.stderr).toContain('require an MFA check for each session');
      });
    } finally {
      await app.services.users.update({ name: 'alice', roles: ['maria-native'] }, 'test');
    }
    await vi.waitFor(async () =>
      expect((await mariadbClient([], 'select 1')).stdout.trim()).toBe('1'),
    );
  });

  it('Ctrl-C in the mariadb client kills the running query, through a second connection', async () => {
    const sql = (statement: string) => mariadb.sql(statement);
    const stopped = await interruptedMariadb(args(), sql);
    expect(stopped.stoppedMs).toBeLessThan(5_000);
    await vi.waitFor(async () => expect(await sleepsRunning(sql)).toBe(0));
    expect(stopped.output).toMatch(/Query execution was interrupted/);
  });
});
