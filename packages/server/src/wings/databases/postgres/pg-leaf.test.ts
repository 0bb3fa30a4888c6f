import { readFileSync } from 'node:fs';
import pg from 'pg';
import { runClient } from '../../../testing/run-client.testkit.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../../../agent/tunnel-proxy.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import {
  leafDatabaseSessionAudited,
  msToEndOnRootLock,
  startRootAndLeafTunnels,
  type RootAndLeafTunnels,
} from '../../../modules/trusted-clusters/leaf-tunnels.testkit.js';
import { createDatabaseRole, registerTestDatabase } from '../../../testing/databases.testkit.js';
import {
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../../testing/private-postgres.testkit.js';
import { loginCommand } from '../cli/db-client.js';
import { nativeListenerOf } from '../../../testing/native-listeners.testkit.js';
import type { NativeListener } from '../native-listener.js';
import { interruptedPsql } from '../../../testing/psql-interrupt.testkit.js';

/**
 * A trusted leaf's PostgreSQL on the root's native listener (`postern db login --cluster`): the
 * real psql and `pg` with a certificate of the root's access CA, through the root to the leaf's
 * engine and a real PostgreSQL that trusts only the leaf's database client CA. The leaf's role
 * map, RBAC and audit decide; the root pins the route, audits the hop and ends it on its locks.
 */
let world: RootAndLeafTunnels;
let postgres: PrivatePostgres;
let listener: NativeListener;

beforeAll(async () => {
  world = await startRootAndLeafTunnels('leaf-native');
  const { root, leaf } = world;
  postgres = await startPrivatePostgres({
    tls: { clientCaPem: (await leaf.services.dbClientCa()).certPem },
  });
  await postgres.sql('create role alice_db login; create role other_db login;');
  await postgres.sql('create database appdb owner alice_db');
  await registerTestDatabase(leaf, postgres, { name: 'pg', protocol: 'postgres' });
  await createDatabaseRole(leaf, 'leaf-native', { db_users: ['alice_db'], db_names: ['appdb'] });
  for (const user of ['carol', 'lena']) {
    await root.services.users.create({ name: user, roles: ['access'] }, 'test');
  }
  await eventually(() => leaf.services.databases.get('pg') !== undefined, 10_000, 'the database');
  listener = await nativeListenerOf(root, 'postgres');
}, 120_000);

afterAll(async () => {
  await listener?.stop();
  await world?.stop();
  await postgres?.destroy();
});

/** `postern db login pg --cluster leaf` as `user`: libpq's connection string for the listener. */
async function loginAs(user: string, dbUser = 'alice_db') {
  const env = await world.envOf(user, ['access']);
  const login = await loginCommand(env, 'pg', { dbUser, dbName: 'appdb', cluster: 'leaf' });
  const { cert, key, ca } = login.files;
  const conninfo = (overrides: Record<string, string> = {}) =>
    Object.entries({
      host: '127.0.0.1',
      port: String(listener.address.port),
      sslmode: 'verify-full',
      sslrootcert: ca,
      sslcert: cert,
      sslkey: key,
      user: dbUser,
      dbname: 'appdb',
      ...overrides,
    })
      .map(([name, value]) => `${name}=${value}`)
      .join(' ');
  return { login, conninfo };
}

function psql(conninfo: string, sql: string) {
  return runClient('psql', [conninfo, '-X', '-At', '-c', sql]);
}

describe("a leaf's PostgreSQL on the root's native listener", () => {
  it('psql runs SQL on the leaf’s database with a db login --cluster certificate', async () => {
    const { login, conninfo } = await loginAs('alice');
    expect(login.lines[0]).toContain(
      'Logged in to database pg on leaf as alice_db, database appdb',
    );
    expect(login.files.cert).toMatch(/pg@leaf\.crt$/);
    const result = await psql(conninfo(), 'select current_user, current_database(), 6 * 7');
    expect(result).toMatchObject({ code: 0, stdout: 'alice_db|appdb|42\n' });
    await leafDatabaseSessionAudited(world, { user: 'alice', name: 'pg', query: /6 \* 7/ });
  });

  it('pins the certificate’s route, and asks the leaf before it signs one', async () => {
    const { conninfo } = await loginAs('alice');
    const other = await psql(conninfo({ user: 'other_db' }), 'select 1');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(
      'this certificate is for database user "alice_db" and database "appdb" on pg@leaf',
    );
    const env = await world.envOf('alice', ['access']);
    await expect(
      loginCommand(env, 'pg', { dbUser: 'other_db', dbName: 'appdb', cluster: 'leaf' }),
    ).rejects.toThrow(/leaf does not let alice connect to pg as database user "other_db"/);
    const eve = await world.envOf('eve', ['auditor']);
    await expect(
      loginCommand(eve, 'pg', { dbUser: 'alice_db', dbName: 'appdb', cluster: 'leaf' }),
    ).rejects.toThrow();
  });

  it('refuses a leaf’s MySQL route: this listener takes PostgreSQL routes only', async () => {
    const access = await world.root.services.dbAccessCa();
    const route = { user: 'alice', db: 'pg', dbUser: 'alice_db', dbName: 'appdb' };
    const issued = await access.routeCertificate(
      { ...route, cluster: 'leaf', protocol: 'mysql' },
      60_000,
    );
    const client = new pg.Client({
      host: '127.0.0.1',
      port: listener.address.port,
      user: 'alice_db',
      database: 'appdb',
      ssl: {
        ca: access.certPem,
        cert: issued.certPem,
        key: issued.keyPem,
        servername: 'localhost',
      },
    });
    client.on('error', () => undefined);
    await expect(client.connect()).rejects.toThrow('no PostgreSQL database named pg on leaf');
  });

  it('psql’s Ctrl-C cancels a running query on the leaf (the key read on the way through)', async () => {
    const { conninfo } = await loginAs('carol');
    const stopped = await interruptedPsql(conninfo(), (sql) => postgres.sql(sql));
    expect(stopped.stderr).toContain('canceling statement due to user request');
    expect(stopped.stoppedMs).toBeLessThan(5_000);
  });

  it('the leaf’s refusal at connect is told in PostgreSQL’s words (a lock there)', async () => {
    const { conninfo } = await loginAs('lena');
    const lock = await world.leaf.services.locks.create(
      { targets: { user: 'lena' }, message: 'leaf incident' },
      hostActor('test'),
    );
    try {
      await vi.waitFor(async () => {
        const refused = await psql(conninfo(), 'select 1');
        expect(refused.stderr).toMatch(/FATAL: .*leaf incident/);
      });
    } finally {
      await world.leaf.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });

  it('a lock on the root ends the session within seconds', async () => {
    const { conninfo } = await loginAs('larry');
    const client = new pg.Client({ connectionString: undefined, ...parse(conninfo()) });
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    client.on('error', () => undefined);
    await client.connect();
    expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    expect(await msToEndOnRootLock(world, 'larry', () => ended)).toBeLessThan(10_000);
  });
});

/** libpq's key=value string as `pg`'s options, with its TLS files read. */
function parse(conninfo: string) {
  const fields = Object.fromEntries(conninfo.split(' ').map((pair) => pair.split('=')));
  return {
    host: fields.host,
    port: Number(fields.port),
    user: fields.user,
    database: fields.dbname,
    ssl: {
      ca: readFileSync(fields.sslrootcert),
      cert: readFileSync(fields.sslcert),
      key: readFileSync(fields.sslkey),
      servername: 'localhost',
    },
  };
}
