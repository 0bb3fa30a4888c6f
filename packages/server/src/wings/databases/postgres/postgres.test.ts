import { apiPaths } from '@postern/contracts';
import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { connect } from 'node:net';
import pg from 'pg';
import { runClient } from '../../../testing/run-client.testkit.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { listenThroughProxy, type TunnelListener } from '../../../cli/login/tunnel-listener.js';
import { createDatabaseRole, registerTestDatabase } from '../../../testing/databases.testkit.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { approvedRequest } from '../../../testing/access-requests.testkit.js';
import { signedInHome } from '../../../testing/cli-home.testkit.js';
import { signedHeaders } from '../../../testing/signed-request.testkit.js';
import { inviteUser, nextTotp } from '../../../testing/identity.testkit.js';
import { tunnelCertificates } from '../../../cli/login/session-mfa.js';
import WebSocket from 'ws';
import {
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../../testing/private-postgres.testkit.js';
import { startupMessage } from './pg-wire.js';
import { createSessionMfaRole } from '../../../testing/roles.testkit.js';
import { auditEventsOf } from '../../../testing/audit-events.testkit.js';
import { interruptedPsql } from '../../../testing/psql-interrupt.testkit.js';

// A real PostgreSQL (TLS on, `hostssl … cert`, trusting only the proxy's database client CA),
// reached with the real psql and the `pg` driver through `postern proxy db`'s listener and a
// listening Postern: no password anywhere, the proxy signs in with a certificate per db user.

let app: TestApp;
let postgres: PrivatePostgres;
let home: string;
let listener: TunnelListener;
let port: number;

beforeAll(async () => {
  app = await createTestApp();
  const ca = await app.services.dbClientCa();
  postgres = await startPrivatePostgres({
    tls: {
      clientCaPem: ca.certPem,
      hba: ['hostssl all pw_user 127.0.0.1/32 scram-sha-256'],
    },
  });
  await postgres.sql(`
    create role alice_db login; create role bob_db login; create role shared login;
    create role pw_user login password 'secret';`);
  await postgres.sql('create database appdb owner alice_db');
  await postgres.sql('create database secretdb');
  await registerTestDatabase(app, postgres, { name: 'pg', protocol: 'postgres' });
  await createDatabaseRole(app, 'pg-users', {
    db_users: ['alice_db', 'shared', 'pw_user'],
    db_names: ['appdb', 'postgres'],
  });
  await app.services.users.create({ name: 'alice', roles: ['pg-users'] }, 'test');
  ({ port } = await app.listenOnLoopback());
  ({ home } = await signedInHome(app, port, 'alice', ['pg-users']));
  await vi.waitFor(() => expect(app.services.databases.get('pg')).toBeDefined());
  listener = await listenThroughProxy(
    { POSTERN_HOME: home },
    { name: 'pg', path: apiPaths.databaseConnect('pg') },
    0,
  );
}, 120_000);

afterAll(async () => {
  await listener?.close();
  await app?.close();
  await postgres?.destroy();
  if (home) await rm(home, { recursive: true, force: true });
});

const conninfo = (user: string, database: string, extra = '') =>
  `host=127.0.0.1 port=${listener.port} user=${user} dbname=${database} sslmode=disable ${extra}`;

/** psql through the listener; resolves with its output and exit code whatever they are. */
function psql(user: string, database: string, args: string[], extra = '') {
  return runClient('psql', [conninfo(user, database, extra), '-X', '-At', ...args]);
}

const pgClient = async (user = 'alice_db', database = 'appdb') => {
  const client = new pg.Client({ host: '127.0.0.1', port: listener.port, user, database });
  await client.connect();
  return client;
};

describe('PostgreSQL through Postern', () => {
  it('psql signs in as the db user by certificate, over TLS to the database', async () => {
    const result = await psql('alice_db', 'appdb', [
      '-c',
      'select current_user, current_database(), ssl from pg_stat_ssl where pid = pg_backend_pid()',
    ]);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('alice_db|appdb|t');
  });

  it('refuses a db user or a database the roles do not allow, in the client’s own words', async () => {
    const user = await psql('bob_db', 'appdb', ['-c', 'select 1']);
    expect(user.code).toBe(2);
    expect(user.stderr).toContain(
      'FATAL:  access to db denied: alice may not connect to pg as database user "bob_db"',
    );
    const name = await psql('alice_db', 'secretdb', ['-c', 'select 1']);
    expect(name.stderr).toContain('may not open database "secretdb" on pg');
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

  it('needs a per-session MFA certificate for the tunnel when the roles ask, which a code gets', async () => {
    await createSessionMfaRole(app);
    const mika = await inviteUser(app, 'mika', { roles: ['pg-users', 'checked'] });
    const path = apiPaths.databaseConnect('pg');
    // The login's certificate alone: refused before the upgrade.
    const status = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, {
        headers: signedHeaders(app, 'mika', { path }),
      });
      socket.once('open', () => (socket.close(), resolve(101)));
      socket.once('unexpected-response', (_req, res) => resolve(res.statusCode!));
      socket.once('error', reject);
    });
    expect(status).toBe(403);

    // As postern db connect and postern proxy db do: a code, then a one-minute certificate.
    const mikaHome = (await signedInHome(app, port, 'mika', ['pg-users', 'checked'])).home;
    const env = { POSTERN_HOME: mikaHome };
    const asked: string[] = [];
    const certificate = tunnelCertificates(env, { kind: 'db', name: 'pg' }, async (question) => {
      asked.push(question);
      return nextTotp(app, mika.totpSecret!);
    });
    const tunnel = await listenThroughProxy(env, { name: 'pg', path, certificate }, 0);
    try {
      const client = new pg.Client({
        host: '127.0.0.1',
        port: tunnel.port,
        user: 'alice_db',
        database: 'appdb',
      });
      await client.connect();
      expect((await client.query('select 41 + 1 as n')).rows).toEqual([{ n: 42 }]);
      await client.end();
      // A second connection within the minute reuses the certificate: one question in all.
      const again = new pg.Client({
        host: '127.0.0.1',
        port: tunnel.port,
        user: 'alice_db',
        database: 'appdb',
      });
      await again.connect();
      await again.end();
      expect(asked).toEqual([expect.stringContaining('Authenticator code for db pg')]);
      // The tunnel's certificate names the device that answered: a lock on it ends a live session.
      const live = new pg.Client({
        host: '127.0.0.1',
        port: tunnel.port,
        user: 'alice_db',
        database: 'appdb',
      });
      live.on('error', () => undefined);
      await live.connect();
      const ended = new Promise<void>((resolve) => live.once('end', () => resolve()));
      const [phone] = (await app.services.users.store.credentials('mika')).devices;
      const lock = await app.services.locks.create(
        { targets: { mfa_device: phone!.id }, message: 'phone lost' },
        hostActor('test'),
      );
      try {
        await ended;
      } finally {
        await app.services.locks.remove(lock.metadata.name, hostActor('test'));
      }
    } finally {
      await tunnel.close();
      await rm(mikaHome, { recursive: true, force: true });
    }
  });

  it('refuses startup parameters that would change who the session runs as', async () => {
    const role = await psql(
      'alice_db',
      'appdb',
      ['-c', 'select current_user'],
      "options='-c role=shared'",
    );
    expect(role.code).toBe(2);
    expect(role.stderr).toContain('the startup option "-c role=shared" is not allowed');
    const settings = await psql(
      'alice_db',
      'appdb',
      ['-c', 'show statement_timeout'],
      "options='-c statement_timeout=1234'",
    );
    expect(settings.stdout.trim()).toBe('1234ms');
  });

  it('says so when the database wants a password instead of the certificate', async () => {
    const result = await psql('pw_user', 'postgres', ['-c', 'select 1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('asked for a password for "pw_user"');
  });

  it('runs the extended protocol with parameters and audits parse, bind and execute', async () => {
    const client = await pgClient();
    const marker = `marker-${Date.now()}`;
    const { rows } = await client.query('select $1::int + 1 as n, $2::text as tag', [41, marker]);
    expect(rows).toEqual([{ n: 42, tag: marker }]);
    await client.query(`select 'simple-${marker}'`);
    await client.end();
    await vi.waitFor(async () => {
      const parse = (await auditEventsOf(app, 'TPG00I')).find((event) =>
        String(event.query).includes('$1::int + 1'),
      );
      expect(parse).toMatchObject({ user: 'alice', db_user: 'alice_db', db_name: 'appdb' });
      const bind = (await auditEventsOf(app, 'TPG01I')).find((event) =>
        (event.parameters as string[]).includes(marker),
      );
      expect(bind?.parameters).toEqual(['41', marker]);
      expect((await auditEventsOf(app, 'TPG02I')).some((event) => event.sid === parse!.sid)).toBe(
        true,
      );
      const simple = (await auditEventsOf(app, 'TDB02I')).find(
        (event) => event.query === `select 'simple-${marker}'`,
      );
      expect(simple?.sid).toBe(parse!.sid);
      const ended = (await auditEventsOf(app, 'TDB01I')).find((event) => event.sid === parse!.sid);
      expect(ended).toMatchObject({ db_service: 'pg', reason: 'closed' });
    });
  });

  it('copies in and out, passes notices, and delivers LISTEN/NOTIFY', async () => {
    const rows = Array.from({ length: 20_000 }, (_, n) => `${n}\trow-${n}`).join('\n');
    const copyIn = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn('psql', [
        conninfo('alice_db', 'appdb'),
        '-X',
        '-At',
        '-c',
        'create table if not exists copied (n int, t text)',
        '-c',
        '\\copy copied from stdin',
        '-c',
        "select count(*), md5(string_agg(t, ',' order by n)) from copied",
      ]);
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stdin.end(`${rows}\n\\.\n`);
      child.once('close', (code) => resolve({ code, out }));
    });
    expect(copyIn.code).toBe(0);
    const [count] = copyIn.out.trim().split('\n').at(-1)!.split('|');
    expect(count).toBe('20000');
    const copyOut = await psql('alice_db', 'appdb', [
      '-c',
      '\\copy (select * from copied order by n) to stdout',
    ]);
    expect(copyOut.stdout).toBe(`${rows}\n`);

    const notice = await psql('alice_db', 'appdb', [
      '-c',
      "do $$ begin raise notice 'hello from plpgsql'; end $$",
    ]);
    expect(notice.stderr).toContain('NOTICE:  hello from plpgsql');

    const listening = await pgClient();
    const heard = new Promise<string | undefined>((resolve) =>
      listening.on('notification', (message) => resolve(message.payload)),
    );
    await listening.query('listen postern_channel');
    const talking = await pgClient('shared', 'appdb');
    await talking.query("select pg_notify('postern_channel', 'ping through the proxy')");
    expect(await heard).toBe('ping through the proxy');
    await Promise.all([listening.end(), talking.end()]);
  });

  it('psql’s Ctrl-C cancels a running query through the proxy’s own cancel key', async () => {
    const started = Date.now();
    const stopped = await interruptedPsql(conninfo('alice_db', 'appdb'), (sql) =>
      postgres.sql(sql),
    );
    expect(stopped.stderr).toContain('canceling statement due to user request');
    expect(stopped.code).toBe(1);
    expect(stopped.stoppedMs).toBeLessThan(5_000);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('ends a malformed client’s connection with a protocol error and an audit event', async () => {
    const socket = connect({ host: '127.0.0.1', port: listener.port });
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.write(
      startupMessage(
        new Map([
          ['user', 'alice_db'],
          ['database', 'appdb'],
        ]),
      ),
    );
    // Wait for ReadyForQuery, then send a message whose length field is impossible.
    await vi.waitFor(() =>
      expect(Buffer.concat(received).includes(Buffer.from('Z\0\0\0\x05I'))).toBe(true),
    );
    socket.write(Buffer.from([0x51, 0, 0, 0, 2]));
    await new Promise((resolve) => socket.once('close', resolve));
    expect(Buffer.concat(received).toString('latin1')).toContain('protocol violation');
    await vi.waitFor(async () => {
      const ends = await auditEventsOf(app, 'TDB01I');
      expect(ends.some((event) => String(event.reason).startsWith('protocol violation'))).toBe(
        true,
      );
    });
    // The proxy still serves the next client.
    expect((await psql('alice_db', 'appdb', ['-c', 'select 7'])).stdout.trim()).toBe('7');
  });

  it('a lock on the user ends a running query’s session within seconds', async () => {
    const child = spawn('psql', [
      conninfo('shared', 'postgres'),
      '-X',
      '-c',
      'select pg_sleep(30)',
    ]);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await vi.waitFor(
      async () => {
        const active = await postgres.sql(
          "select count(*) from pg_stat_activity where usename = 'shared' and state = 'active'",
        );
        expect(active.trim()).toBe('1');
      },
      { timeout: 15_000 },
    );
    const lock = await app.services.locks.create(
      { targets: { user: 'alice' }, message: 'incident' },
      hostActor('test'),
    );
    const locked = Date.now();
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(Date.now() - locked).toBeLessThan(5_000);
    expect(code).not.toBe(0);
    expect(stderr).toContain('terminating connection: alice is locked');
    const refused = await psql('alice_db', 'appdb', ['-c', 'select 1']);
    expect(refused.code).not.toBe(0);
    await app.services.locks.remove(lock.metadata.name, hostActor('test'));
  });

  it('keeps a database an assumed request allows through postern proxy db, until the request is locked', async () => {
    // bob_db on secretdb only through the request: its roles count for the tunnel's whole life
    // (the session's re-checks resolve them too), and an access_request lock ends it.
    await createDatabaseRole(app, 'pg-secret', { db_users: ['bob_db'], db_names: ['secretdb'] });
    const requestId = await approvedRequest(app, 'alice', ['pg-secret']);
    const assumed = await signedInHome(app, port, 'alice', ['pg-users'], {
      accessRequests: [requestId],
    });
    const path = apiPaths.databaseConnect('pg');
    const tunnel = await listenThroughProxy(
      { POSTERN_HOME: assumed.home },
      { name: 'pg', path },
      0,
    );
    const client = new pg.Client({
      host: '127.0.0.1',
      port: tunnel.port,
      user: 'bob_db',
      database: 'secretdb',
    });
    client.on('error', () => undefined);
    try {
      await client.connect();
      const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
      // Past two of the session's one-second re-checks.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect((await client.query('select current_user as u')).rows).toEqual([{ u: 'bob_db' }]);
      const lock = await app.services.locks.create(
        { targets: { access_request: requestId }, message: 'request revoked' },
        hostActor('test'),
      );
      try {
        await ended;
      } finally {
        await app.services.locks.remove(lock.metadata.name, hostActor('test'));
      }
    } finally {
      await tunnel.close();
      await rm(assumed.home, { recursive: true, force: true });
    }
  });
});
