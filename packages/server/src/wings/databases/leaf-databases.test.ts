import { apiPaths } from '@postern/contracts';
import pg from 'pg';
import { Command } from 'commander';
import { runClient } from '../../testing/run-client.testkit.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import {
  msToEndOnRootLock,
  startRootAndLeafTunnels,
  upgradeAnswer,
  type RootAndLeafTunnels,
} from '../../modules/trusted-clusters/leaf-tunnels.testkit.js';
import { createDatabaseRole, registerTestDatabase } from '../../testing/databases.testkit.js';
import {
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../testing/private-postgres.testkit.js';
import { listenThroughProxy } from '../../cli/login/tunnel-listener.js';
import { openTerminal } from '../../testing/terminal-client.testkit.js';
import { wingCommands } from '../cli.js';
import { listDatabases } from './cli/db-client.js';

/**
 * A trusted leaf's database from the root's command line (`postern proxy db --cluster`,
 * `postern db ls --cluster`): the real psql and `pg` through the root's web port, the leaf's
 * tunnel and the leaf's PostgreSQL engine to a real PostgreSQL that trusts only the leaf's
 * database client CA. The leaf's role map, RBAC and audit decide; the root audits the hop and
 * ends it on its own locks.
 */
let world: RootAndLeafTunnels;
let postgres: PrivatePostgres;

beforeAll(async () => {
  world = await startRootAndLeafTunnels('leaf-db');
  const { leaf } = world;
  postgres = await startPrivatePostgres({
    tls: { clientCaPem: (await leaf.services.dbClientCa()).certPem },
  });
  await postgres.sql('create role alice_db login; create role other_db login;');
  await postgres.sql('create database appdb owner alice_db');
  await registerTestDatabase(leaf, postgres, { name: 'pg', protocol: 'postgres' });
  await createDatabaseRole(leaf, 'leaf-db', { db_users: ['alice_db'], db_names: ['appdb'] });
  await eventually(() => leaf.services.databases.get('pg') !== undefined, 10_000, 'the database');
}, 120_000);

afterAll(async () => {
  await world?.stop();
  await postgres?.destroy();
});

function psql(port: number, user: string, database: string, sql: string) {
  const conninfo = `host=127.0.0.1 port=${port} user=${user} dbname=${database} sslmode=disable`;
  return runClient('psql', [conninfo, '-X', '-At', '-c', sql]);
}

const pgOnLeaf = { kind: 'db', name: 'pg' } as const;

/** `postern <args>` through the wing's own commands, with `env`'s login: the lines printed. */
async function runCommand(env: NodeJS.ProcessEnv, args: string[]): Promise<string[]> {
  // Every wing's commands, as `postern` builds them (main.ts).
  const program = new Command('postern').exitOverride();
  for (const add of Object.values(wingCommands)) add(program);
  const lines: string[] = [];
  const print = vi.spyOn(console, 'log').mockImplementation((line: string) => lines.push(line));
  vi.stubEnv('POSTERN_HOME', env.POSTERN_HOME);
  try {
    await program.parseAsync(args, { from: 'user' });
  } finally {
    vi.unstubAllEnvs();
    print.mockRestore();
  }
  return lines;
}

describe("a leaf's databases through the root", () => {
  it('db ls --cluster lists what the leaf lets the user reach', async () => {
    const lines: string[] = [];
    await listDatabases(await world.envOf('alice', ['access']), (line) => lines.push(line), 'leaf');
    expect(lines[0]).toMatch(/^NAME\s+PROTOCOL\s+USERS\s+NAMES/);
    expect(lines.find((line) => line.startsWith('pg '))).toMatch(/postgres\s+alice_db\s+appdb/);
  });

  it('the commands take --cluster: db ls, and db config naming the tunnel to run', async () => {
    const env = await world.envOf('alice', ['access']);
    const lines = await runCommand(env, ['db', 'ls', '--cluster', 'leaf']);
    expect(lines.find((line) => line.startsWith('pg '))).toMatch(/alice_db/);
    const config = ['db', 'config', 'pg', '--cluster', 'leaf', '--db-user', 'alice_db'];
    expect(await runCommand(env, config)).toContainEqual(
      expect.stringMatching(/postern proxy db pg --cluster leaf --port 5432/),
    );
  });

  it('psql runs SQL on the leaf’s database, audited on the leaf and the hop on the root', async () => {
    const { port } = await world.proxyOnLeaf('alice', ['access'], pgOnLeaf);
    const result = await psql(port, 'alice_db', 'appdb', 'select current_user, 6 * 7');
    expect(result).toMatchObject({ code: 0, stdout: 'alice_db|42\n' });
    await eventually(
      async () =>
        (await world.eventsOf(world.leaf)).some(
          (e) => e.code === 'TDB02I' && e.user === 'alice' && /6 \* 7/.test(String(e.query)),
        ),
      10_000,
      "the leaf's statement event",
    );
    await eventually(
      async () => {
        const hops = (await world.eventsOf(world.root)).filter((e) => e.user === 'alice');
        return (
          hops.some((e) => e.code === 'TPOS062I' && e.kind === 'database' && e.name === 'pg') &&
          hops.some((e) => e.code === 'TPOS063I' && e.cluster === 'leaf')
        );
      },
      10_000,
      "the root's hop events",
    );
  });

  it('the leaf refuses a database user its roles do not allow, in PostgreSQL’s words', async () => {
    const { port } = await world.proxyOnLeaf('alice', ['access'], pgOnLeaf);
    const result = await psql(port, 'other_db', 'appdb', 'select 1');
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/FATAL: .*may not connect to pg as database user "other_db"/);
  });

  it('a session outlives the leaf’s rechecks, and a lock on the root ends it within seconds', async () => {
    const { port } = await world.proxyOnLeaf('larry', ['access'], pgOnLeaf);
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'alice_db', database: 'appdb' });
    const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
    client.on('error', () => undefined);
    await client.connect();
    // The leaf asks again every second whether the user still may: the session lives on.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    expect(await msToEndOnRootLock(world, 'larry', () => ended)).toBeLessThan(10_000);
    await eventually(
      async () =>
        (await world.eventsOf(world.root)).some(
          (e) =>
            e.code === 'TPOS063I' && e.user === 'larry' && /root says no/.test(String(e.reason)),
        ),
      10_000,
      "the root's hop end",
    );
  });

  it('a user the leaf maps no role to is told why', async () => {
    const { port, logged } = await world.proxyOnLeaf('eve', ['auditor'], pgOnLeaf);
    const result = await psql(port, 'alice_db', 'appdb', 'select 1');
    expect(result.code).not.toBe(0);
    await eventually(() => logged.length > 0, 10_000, 'the refusal');
    expect(logged[0]).toMatch(
      /pg on leaf: leaf: none of eve's roles on root \(auditor\) map to a role on leaf/,
    );
  });
});

describe("per-session MFA on a leaf's database", () => {
  it('the leaf’s roles ask: the CLI asks for a code, the root checks it and vouches to the leaf', async () => {
    const asked: string[] = [];
    const askCode = async (question: string) => {
      asked.push(question);
      return world.miaCode();
    };
    const { port } = await world.proxyOnLeaf('mia', ['checked-access'], pgOnLeaf, askCode);
    const client = new pg.Client({ host: '127.0.0.1', port, user: 'alice_db', database: 'appdb' });
    await client.connect();
    try {
      expect((await client.query('select 7 as seven')).rows).toEqual([{ seven: 7 }]);
    } finally {
      await client.end();
    }
    expect(asked).toEqual([expect.stringMatching(/code for db pg on leaf/)]);
  });

  it('without the check, the leaf refuses and says why', async () => {
    const env = await world.envOf('mia', ['checked-access']);
    const logged: string[] = [];
    const path = apiPaths.databaseConnectIn('leaf', 'pg');
    // The login's certificate alone, as a CLI that does not ask for the check would sign.
    const login = { name: 'pg', path, certificate: () => Promise.resolve(undefined) };
    const listener = await listenThroughProxy(env, login, 0, (line) => logged.push(line));
    try {
      const result = await psql(listener.port, 'alice_db', 'appdb', 'select 1');
      expect(result.code).not.toBe(0);
      await eventually(() => logged.length > 0, 10_000, 'the refusal');
      expect(logged[0]).toMatch(/HTTP 403: .*require an MFA check for each session/);
    } finally {
      await listener.close();
    }
  });
});

describe('what the root lets through', () => {
  const answer = async (path: string, headers?: Record<string, string>) =>
    upgradeAnswer(world.rootPort, path, headers ?? (await world.signedUpgrade(path)));

  it('a signed upgrade may open a tunnel, once, and nothing else', async () => {
    const path = apiPaths.databaseConnectIn('leaf', 'pg');
    const headers = await world.signedUpgrade(path);
    expect((await answer(path, headers)).status).toBe('open');
    expect(await answer(path, headers)).toMatchObject({
      status: 401,
      body: expect.stringMatching(/already used/),
    });
    expect(await answer(apiPaths.nodes('leaf'))).toMatchObject({
      status: 403,
      body: expect.stringMatching(/may only open a tunnel/),
    });
  });

  it('the browser’s SQL console on the leaf’s database, from the root’s console', async () => {
    const alice = await world.root.signIn(['access'], 'alice');
    const client = await openTerminal({
      baseUrl: `http://127.0.0.1:${world.rootPort}`,
      headers: alice,
      path: apiPaths.databaseConsole('leaf', 'pg'),
      params: { term: { w: 100, h: 30 }, db_user: 'alice_db', db_name: 'appdb' },
    });
    expect(client.response.status).toBe('ok');
    await client.waitForOutput('appdb=> ');
    client.type("select 'via-root-' || 6 * 7 as mark;\r");
    await client.waitForOutput('via-root-42');
    client.type('\\q\r');
    await client.closed;
    // The leaf ran and audited it as the root's user, with the database user its roles allow.
    await eventually(
      async () =>
        (await world.eventsOf(world.leaf)).some(
          (e) => e.code === 'TDB02I' && e.user === 'alice' && String(e.query).includes('via-root-'),
        ),
      10_000,
      "the leaf's query event",
    );
    // A database user the leaf's roles do not allow: refused in the console, by the leaf.
    const refused = await openTerminal({
      baseUrl: `http://127.0.0.1:${world.rootPort}`,
      headers: alice,
      path: apiPaths.databaseConsole('leaf', 'pg'),
      params: { term: { w: 100, h: 30 }, db_user: 'other_db', db_name: 'appdb' },
    });
    await refused.closed;
    // The leaf's refusal, as an error frame the console shows.
    expect(refused.frames).toContainEqual(
      expect.objectContaining({
        payload: expect.stringMatching(/may not connect to pg as database user "other_db"/),
      }),
    );
  });

  it('a database the leaf does not have is the leaf’s 404', async () => {
    expect(await answer(apiPaths.databaseConnectIn('leaf', 'nope'))).toMatchObject({
      status: 404,
      body: expect.stringMatching(/no database named nope/),
    });
  });
});
