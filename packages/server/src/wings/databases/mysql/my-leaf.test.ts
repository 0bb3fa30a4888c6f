import { readFile } from 'node:fs/promises';
import mysql from 'mysql2/promise';
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
import { interruptedMariadb, sleepsRunning } from '../../../testing/mariadb-interrupt.testkit.js';
import {
  startPrivateMariadb,
  type PrivateMariadb,
} from '../../../testing/private-mariadb.testkit.js';
import { loginCommand, nativeMysqlArgs } from '../cli/db-client.js';
import { nativeListenerOf } from '../../../testing/native-listeners.testkit.js';
import type { NativeListener } from '../native-listener.js';
import { requireSubjectFor } from './require-subject.js';

/**
 * A trusted leaf's MariaDB on the root's native MySQL listener (`postern db login --cluster`):
 * the real mariadb client and mysql2 with a certificate of the root's access CA, through the root
 * to the leaf's engine and a real MariaDB that trusts only the leaf's database client CA. The
 * leaf's role map, RBAC and audit decide; the root pins the route, audits the hop, maps Ctrl-C's
 * `KILL` to the leaf's connection id and ends the hop on its locks.
 */
let world: RootAndLeafTunnels;
let mariadb: PrivateMariadb;
let listener: NativeListener;
const sql = (statement: string) => mariadb.sql(statement);

beforeAll(async () => {
  world = await startRootAndLeafTunnels('leaf-native-my');
  const { root, leaf } = world;
  mariadb = await startPrivateMariadb({ clientCaPem: (await leaf.services.dbClientCa()).certPem });
  await mariadb.sql(`
    create database appdb;
    create user 'alice_db'@'%' ${requireSubjectFor('alice_db')};
    create user 'other_db'@'%' ${requireSubjectFor('other_db')};
    grant all on appdb.* to 'alice_db'@'%';`);
  await registerTestDatabase(leaf, mariadb, { name: 'maria', protocol: 'mysql' });
  await createDatabaseRole(leaf, 'leaf-native-my', {
    db_users: ['alice_db'],
    db_names: ['appdb'],
  });
  for (const user of ['carol']) {
    await root.services.users.create({ name: user, roles: ['access'] }, 'test');
  }
  await eventually(() => leaf.services.databases.get('maria') !== undefined, 10_000, 'the db');
  listener = await nativeListenerOf(root, 'mysql');
}, 120_000);

afterAll(async () => {
  await listener?.stop();
  await world?.stop();
  await mariadb?.destroy();
});

/** `postern db login maria --cluster leaf` as `user`: the mariadb client's arguments. */
async function loginAs(user: string) {
  const env = await world.envOf(user, ['access']);
  const login = await loginCommand(env, 'maria', {
    dbUser: 'alice_db',
    dbName: 'appdb',
    cluster: 'leaf',
  });
  const port = String(listener.address.port);
  const args = (dbUser = 'alice_db') =>
    nativeMysqlArgs('127.0.0.1', port, login.files, dbUser, 'appdb');
  return { login, args };
}

function mariadbClient(args: string[], statement: string) {
  return runClient('mariadb', [...args, '--batch', '--skip-column-names', '-e', statement]);
}

describe("a leaf's MariaDB on the root's native MySQL listener", () => {
  it('the mariadb client runs SQL on the leaf’s database with a db login --cluster certificate', async () => {
    const { login, args } = await loginAs('alice');
    expect(login.lines[0]).toContain(
      'Logged in to database maria on leaf as alice_db, database appdb',
    );
    const result = await mariadbClient(args(), 'select current_user(), database(), 6 * 7');
    expect(result).toMatchObject({ code: 0, stdout: 'alice_db@%\tappdb\t42\n' });
    await leafDatabaseSessionAudited(world, { user: 'alice', name: 'maria', query: /6 \* 7/ });
  });

  it('pins the certificate’s route, and tells the leaf’s refusal in MySQL’s words', async () => {
    const { args } = await loginAs('alice');
    const other = await mariadbClient(args('other_db'), 'select 1');
    expect(other.code).not.toBe(0);
    expect(other.stderr).toContain(
      'ERROR 1045 (28000): this certificate is for database user "alice_db" and database "appdb" on maria@leaf',
    );
    const lock = await world.leaf.services.locks.create(
      { targets: { user: 'alice' }, message: 'leaf incident' },
      hostActor('test'),
    );
    try {
      await vi.waitFor(async () => {
        const refused = await mariadbClient(args(), 'select 1');
        expect(refused.stderr).toMatch(/ERROR \d+ \(\w+\): .*leaf incident/);
      });
    } finally {
      await world.leaf.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });

  it('Ctrl-C in the mariadb client kills the running query on the leaf (the id mapped)', async () => {
    const { args } = await loginAs('carol');
    const stopped = await interruptedMariadb(args(), sql);
    expect(stopped.stoppedMs).toBeLessThan(5_000);
    await vi.waitFor(async () => expect(await sleepsRunning(sql)).toBe(0));
    expect(stopped.output).toMatch(/Query execution was interrupted/);
  });

  it('a lock on the root ends the session within seconds', async () => {
    const { login } = await loginAs('larry');
    const read = (file: string) => readFile(file, 'utf8');
    const connection = await mysql.createConnection({
      host: '127.0.0.1',
      port: listener.address.port,
      user: 'alice_db',
      database: 'appdb',
      ssl: {
        ca: await read(login.files.ca),
        cert: await read(login.files.cert),
        key: await read(login.files.key),
      },
    });
    connection.on('error', () => undefined);
    const alive = () => connection.query('select 1 as one').then(([rows]) => rows, String);
    expect(await alive()).toEqual([{ one: 1 }]);
    const ended = () =>
      vi.waitFor(async () => expect(await alive()).toMatch(/closed|lost|Error/), {
        timeout: 10_000,
        interval: 200,
      });
    expect(await msToEndOnRootLock(world, 'larry', ended)).toBeLessThan(10_000);
    await connection.end().catch(() => undefined);
  });
});
