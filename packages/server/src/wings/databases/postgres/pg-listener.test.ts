import { apiPaths } from '@postern/contracts';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runClient } from '../../../testing/run-client.testkit.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabaseRole, registerTestDatabase } from '../../../testing/databases.testkit.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { approvedRequest } from '../../../testing/access-requests.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { signedInHome } from '../../../testing/cli-home.testkit.js';
import { POSTERN_BOT_INSTANCE_EXTENSION } from '../../../ssh/ca.service.js';
import {
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../../testing/private-postgres.testkit.js';
import { loginCommand } from '../cli/db-client.js';
import { listenerIdentity } from '../listener-identity.js';
import { startPostgresListener, type PostgresListenerDeps } from './pg-listener.js';
import { sslRequest } from './pg-wire.js';
import { TrustedProxies } from '../../../net/proxy-protocol.js';
import { startHaproxy } from '../../../testing/haproxy.testkit.js';
import { createSessionMfaRole } from '../../../testing/roles.testkit.js';
import { interruptedPsql } from '../../../testing/psql-interrupt.testkit.js';

// The native PostgreSQL listener: psql straight to the proxy with TLS and a `postern db login`
// certificate that names one route, no tunnel process in between; a real PostgreSQL behind.

let app: TestApp;
let postgres: PrivatePostgres;
let home: string;
let listener: { address: { port: number }; stop: () => Promise<void> };
let listenerDeps: PostgresListenerDeps;
let files: { cert: string; key: string; ca: string };
let scratch: string;
let port: number;
/** The proxy draining before it stops (SIGTERM), as the hub would say. */
let draining = false;

beforeAll(async () => {
  app = await createTestApp();
  const clientCa = await app.services.dbClientCa();
  postgres = await startPrivatePostgres({ tls: { clientCaPem: clientCa.certPem } });
  await postgres.sql('create role alice_db login; create role shared login');
  await postgres.sql('create database appdb owner alice_db');
  await registerTestDatabase(app, postgres, { name: 'pg', protocol: 'postgres' });
  await createDatabaseRole(app, 'pg-native', {
    db_users: ['alice_db', 'shared'],
    db_names: ['appdb'],
  });
  await app.services.users.create({ name: 'alice', roles: ['pg-native'] }, 'test');
  ({ port } = await app.listenOnLoopback());
  ({ home } = await signedInHome(app, port, 'alice', ['pg-native']));
  const { access } = app.services;
  listenerDeps = {
    accessCa: await app.services.dbAccessCa(),
    serverNames: ['localhost', '127.0.0.1'],
    databases: app.services.databases,
    identify: listenerIdentity(access, app.services.lockWatcher),
    engine: {
      ca: clientCa,
      dial: app.services.dialDatabase,
      cancelKeys: app.services.pgCancelKeys,
    },
    sessions: app.services.dbSessions,
    draining: () => draining,
    // The balancer of the PROXY protocol test connects from 127.0.0.2; psql from 127.0.0.1.
    trustedProxies: new TrustedProxies(['127.0.0.2']),
  };
  listener = await startPostgresListener(listenerDeps, { host: '127.0.0.1', port: 0 });
  const login = await loginCommand({ POSTERN_HOME: home }, 'pg', {
    dbUser: 'alice_db',
    dbName: 'appdb',
  });
  expect(login.lines[0]).toContain('Logged in to database pg as alice_db, database appdb');
  files = login.files;
  scratch = await mkdtemp(path.join(tmpdir(), 'postern-native-'));
}, 120_000);

afterAll(async () => {
  await listener?.stop();
  await app?.close();
  await postgres?.destroy();
  if (home) await rm(home, { recursive: true, force: true });
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const conninfo = (overrides: Record<string, string> = {}) =>
  Object.entries({
    host: '127.0.0.1',
    port: String(listener.address.port),
    sslmode: 'verify-full',
    sslrootcert: files.ca,
    sslcert: files.cert,
    sslkey: files.key,
    user: 'alice_db',
    dbname: 'appdb',
    ...overrides,
  })
    .filter(([, value]) => value !== '')
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');

function psql(info: string, sql: string) {
  return runClient('psql', [info, '-X', '-At', '-c', sql]);
}

/** The fingerprint of the certificate the listener on `port` serves (SSLRequest, then TLS). */
function servedCertificate(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const raw = connect({ host: '127.0.0.1', port }, () => raw.write(sslRequest()));
    raw.once('error', reject);
    raw.once('data', () => {
      const tls = tlsConnect({ socket: raw, servername: 'localhost', rejectUnauthorized: false });
      tls.once('error', reject);
      tls.once('secureConnect', () => {
        resolve(tls.getPeerCertificate().fingerprint256);
        tls.destroy();
      });
    });
  });
}

describe('the native PostgreSQL listener', () => {
  it('serves a new certificate of its own before the one it started with expires', async () => {
    // A proxy runs for longer than its listener's certificate is valid (a year): two thirds
    // into its life a new one is issued, and new connections get it, which psql verifies.
    const renewing = await startPostgresListener(
      { ...listenerDeps, certTtlMs: 3_000 },
      { host: '127.0.0.1', port: 0 },
    );
    try {
      const port = renewing.address.port;
      const first = await servedCertificate(port);
      expect(await servedCertificate(port)).toBe(first);
      await vi.waitFor(async () => expect(await servedCertificate(port)).not.toBe(first), {
        timeout: 10_000,
        interval: 200,
      });
      const result = await psql(conninfo({ port: String(port) }), 'select current_user');
      expect(result.stderr).toBe('');
      expect(result.stdout.trim()).toBe('alice_db');
    } finally {
      await renewing.stop();
    }
  });

  it('speaks AES-128-GCM with psql, whatever order the client offers', async () => {
    // libpq (OpenSSL) offers AES-256-GCM first; the listener puts AES-128-GCM first
    // (tls/preferred-ciphers.ts). The proxy offers the same order to the database, which
    // PostgreSQL overrules with its own (ssl_prefer_server_ciphers is on by default).
    const client = await runClient('psql', [conninfo(), '-X', '-c', '\\conninfo']);
    expect(client.stdout).toMatch(/protocol: TLSv1\.3, cipher: TLS_AES_128_GCM_SHA256/);
  });

  it('lets psql in with the db login certificate, verified both ways', async () => {
    const result = await psql(conninfo(), 'select current_user, current_database()');
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('alice_db|appdb');
  });

  it('refuses psql when the roles ask for a per-session MFA check, which psql cannot give', async () => {
    await createSessionMfaRole(app, 'pg-checked');
    await app.services.users.update({ name: 'alice', roles: ['pg-native', 'pg-checked'] }, 'test');
    try {
      await vi.waitFor(async () => {
        const refused = await psql(conninfo(), 'select 1');
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain('require an MFA check for each session');
      });
    } finally {
      await app.services.users.update({ name: 'alice', roles: ['pg-native'] }, 'test');
    }
    await vi.waitFor(async () =>
      expect((await psql(conninfo(), 'select 1')).stdout.trim()).toBe('1'),
    );
  });

  it('refuses new connections while the proxy drains, telling psql the server is shutting down', async () => {
    draining = true;
    try {
      const refused = await psql(conninfo(), 'select 1');
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('this proxy is shutting down; reconnect');
    } finally {
      draining = false;
    }
    expect((await psql(conninfo(), 'select 1')).stdout.trim()).toBe('1');
  });

  it('behind a trusted balancer sending the PROXY protocol, audits the client’s address', async () => {
    const balancer = await startHaproxy({
      backends: [{ host: '127.0.0.1', port: listener.address.port }],
      sendProxy: true,
      check: false,
      source: '127.0.0.2',
    });
    try {
      const started = new Date();
      const result = await psql(conninfo({ port: String(balancer.port) }), 'select 1');
      expect(result.stdout.trim()).toBe('1');
      await vi.waitFor(async () => {
        const { events } = await app.audit.search({
          from: started,
          to: new Date(Date.now() + 60_000),
          eventTypes: ['db.session.start'],
          limit: 10,
        });
        // Without the header it would be the balancer's 127.0.0.2.
        expect(events.map((event) => event['addr.remote'])).toEqual(['127.0.0.1']);
      });
    } finally {
      await balancer.stop();
    }
  });

  it('refuses a client that skips TLS, or brings no certificate', async () => {
    const plain = await psql(conninfo({ sslmode: 'disable' }), 'select 1');
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('takes TLS with a client certificate only');
    const bare = await psql(conninfo({ sslcert: '', sslkey: '' }), 'select 1');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/client certificate|certificate required/);
  });

  it('refuses a certificate used for another database user', async () => {
    const other = await psql(conninfo({ user: 'shared' }), 'select 1');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      'this certificate is for database user "alice_db" and database "appdb" on pg',
    );
  });

  it('refuses a certificate of the database client CA (the proxy’s own kind)', async () => {
    const own = await (await app.services.dbClientCa()).clientCertificate('alice_db');
    const cert = path.join(scratch, 'own.crt');
    const key = path.join(scratch, 'own.key');
    await writeFile(cert, own.certPem);
    await writeFile(key, own.keyPem, { mode: 0o600 });
    const result = await psql(conninfo({ sslcert: cert, sslkey: key }), 'select 1');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('takes TLS with a client certificate only');
  });

  it('signs certificates only for a signed request (401 without one)', async () => {
    const unsigned = await app.server.inject({
      method: 'POST',
      url: apiPaths.databaseLogin('pg'),
      payload: { db_user: 'alice_db', db_name: 'appdb' },
    });
    expect(unsigned.statusCode).toBe(401);
  });

  it('takes an assumed request into the certificate: its roles count, and a lock on it refuses psql', async () => {
    await postgres.sql('create role report_db login');
    await createDatabaseRole(app, 'pg-report', { db_users: ['report_db'], db_names: ['appdb'] });
    const requestId = await approvedRequest(app, 'alice', ['pg-report']);
    const assumed = await signedInHome(app, port, 'alice', ['pg-native'], {
      accessRequests: [requestId],
    });
    try {
      const login = await loginCommand({ POSTERN_HOME: assumed.home }, 'pg', {
        dbUser: 'report_db',
        dbName: 'appdb',
      });
      const info = conninfo({
        user: 'report_db',
        sslcert: login.files.cert,
        sslkey: login.files.key,
      });
      // Past two of the session's one-second re-checks, which resolve the request's roles too.
      const ran = await psql(info, 'select current_user, pg_sleep(2.5) is not null');
      expect(ran.stdout.trim()).toBe('report_db|t');
      const lock = await app.services.locks.create(
        { targets: { access_request: requestId }, message: 'approved in error' },
        hostActor('test'),
      );
      try {
        const refused = await psql(info, 'select 1');
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain('alice is locked');
      } finally {
        await app.services.locks.remove(lock.metadata.name, hostActor('test'));
      }
    } finally {
      await rm(assumed.home, { recursive: true, force: true });
    }
  });

  it("carries a bot's instance into the certificate: a bot_instance lock refuses psql", async () => {
    const instance = randomUUID();
    const bot = await signedInHome(app, port, 'alice', ['pg-native'], {
      extensions: { [POSTERN_BOT_INSTANCE_EXTENSION]: instance },
    });
    try {
      const login = await loginCommand({ POSTERN_HOME: bot.home }, 'pg', {
        dbUser: 'alice_db',
        dbName: 'appdb',
      });
      const info = conninfo({ sslcert: login.files.cert, sslkey: login.files.key });
      expect((await psql(info, 'select 1')).stdout.trim()).toBe('1');
      const lock = await app.services.locks.create(
        { targets: { bot_instance: instance }, message: 'runner compromised' },
        hostActor('test'),
      );
      try {
        const refused = await psql(info, 'select 1');
        expect(refused.code).not.toBe(0);
        expect(refused.stderr).toContain('alice is locked');
        // The same user's own certificate (no instance in it) goes on.
        expect((await psql(conninfo(), 'select 1')).stdout.trim()).toBe('1');
      } finally {
        await app.services.locks.remove(lock.metadata.name, hostActor('test'));
      }
    } finally {
      await rm(bot.home, { recursive: true, force: true });
    }
  });

  it('does not sign a certificate for a database user the roles do not allow', async () => {
    await expect(
      loginCommand({ POSTERN_HOME: home }, 'pg', { dbUser: 'postgres', dbName: 'appdb' }),
    ).rejects.toThrow(/may not connect to pg as database user "postgres"/);
    // PostgreSQL always opens a database: a login naming none is refused (MySQL's may).
    await expect(
      loginCommand({ POSTERN_HOME: home }, 'pg', { dbUser: 'alice_db', dbName: '' }),
    ).rejects.toThrow(/name a database \(PostgreSQL always opens one\)/);
  });

  it('cancels a running query from psql’s Ctrl-C (sent without TLS, by key)', async () => {
    const stopped = await interruptedPsql(conninfo(), (sql) => postgres.sql(sql));
    expect(stopped.stderr).toContain('canceling statement due to user request');
    expect(stopped.stoppedMs).toBeLessThan(5_000);
  });
});
