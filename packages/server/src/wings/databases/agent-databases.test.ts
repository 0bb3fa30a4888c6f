import { apiPaths, createJoinTokenRequestSchema } from '@postern/contracts';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { runAgent, type RunningAgent } from '../../agent/agent.js';
import { parseDatabaseFlags } from '../../agent/database-flags.js';
import { recordingLog } from '../../agent/tunnel-proxy.testkit.js';
import { listenThroughProxy, type TunnelListener } from '../../cli/login/tunnel-listener.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import {
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../testing/private-postgres.testkit.js';

// A database reached only from an agent's host: `postern agent --db name=postgres://…` joins a
// real listening Postern with a Db join token, reports the database on its heartbeat, and psql's
// connection crosses the agent's tunnel, TLS and certificate sign-in still the proxy's.

const run = promisify(execFile);
let app: TestApp;
let postgres: PrivatePostgres;
let agent: RunningAgent;
let dir: string;
let home: string;
let listener: TunnelListener;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-agent-db-'));
  app = await createTestApp();
  postgres = await startPrivatePostgres({
    tls: { clientCaPem: (await app.services.dbClientCa()).certPem },
  });
  await postgres.sql('create role inside_user login');
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'inside-db' },
      spec: {
        allow: { db_labels: { site: 'inside' }, db_users: ['inside_user'], db_names: ['postgres'] },
      },
    }),
    hostActor('test'),
  );
  await app.services.users.create({ name: 'alice', roles: ['inside-db'] }, 'test');
  const { port } = await app.listenOnLoopback();
  const token = await app.services.joinTokens.create(
    createJoinTokenRequestSchema.parse({ roles: ['Db'] }),
    hostActor('test'),
  );
  const caFile = path.join(dir, 'db-ca.crt');
  await writeFile(caFile, postgres.serverCertPem!);
  agent = await runAgent({
    proxy: `http://127.0.0.1:${port}`,
    token: token.token,
    labels: { site: 'inside' },
    dataDir: path.join(dir, 'agent'),
    insecure: false,
    databases: parseDatabaseFlags([
      `inside=postgres://localhost:${postgres.port}?sslrootcert=${caFile}`,
    ]),
    log: recordingLog(),
  });
  await vi.waitFor(() => expect(app.services.databases.get('inside')).toBeDefined(), {
    timeout: 10_000,
  });
  ({ home } = await signedInHome(app, port, 'alice', ['inside-db']));
  listener = await listenThroughProxy(
    { POSTERN_HOME: home },
    { name: 'inside', path: apiPaths.databaseConnect('inside') },
    0,
  );
}, 120_000);

afterAll(async () => {
  await listener?.close();
  await agent?.stop();
  await app?.close();
  await postgres?.destroy();
  await rm(dir, { recursive: true, force: true });
  if (home) await rm(home, { recursive: true, force: true });
});

describe('databases served by an agent', () => {
  it('are listed with the agent’s labels, online, as agent records', () => {
    const row = app.services.databases.rows().find((r) => r.resource.metadata.name === 'inside');
    expect(row?.status).toBe('online');
    expect(row?.resource).toMatchObject({
      source: 'agent',
      agentId: agent.nodeId,
      metadata: { labels: { site: 'inside' } },
      spec: {
        protocol: 'postgres',
        uri: `localhost:${postgres.port}`,
        tls: { mode: 'verify-full' },
      },
    });
  });

  it('are reached through the agent’s tunnel, TLS to the database checked against its CA', async () => {
    const dial = vi.spyOn(app.services.tunnels, 'dial');
    const { stdout } = await run(
      'psql',
      [
        `host=127.0.0.1 port=${listener.port} user=inside_user dbname=postgres sslmode=disable`,
        '-X',
        '-At',
        '-c',
        'select current_user, ssl from pg_stat_ssl where pid = pg_backend_pid()',
      ],
      { timeout: 30_000 },
    );
    expect(stdout.trim()).toBe('inside_user|t');
    expect(dial).toHaveBeenCalledWith({ kind: 'db', name: 'inside' });
  });
});

describe('--db flags', () => {
  it('reads name, protocol, host, port, the CA file and the mode', async () => {
    const caFile = path.join(dir, 'flag-ca.crt');
    await writeFile(caFile, 'PEM');
    expect(
      parseDatabaseFlags([
        `a=postgresql://db.internal?sslrootcert=${caFile}&sslmode=verify-ca`,
        'b=mysql://[::1]:3307',
      ]),
    ).toEqual([
      {
        name: 'a',
        protocol: 'postgres',
        host: 'db.internal',
        port: 5432,
        caCert: 'PEM',
        tlsMode: 'verify-ca',
      },
      {
        name: 'b',
        protocol: 'mysql',
        host: '::1',
        port: 3307,
        caCert: undefined,
        tlsMode: 'verify-full',
      },
    ]);
  });

  it('refuses what it cannot serve, with the flag in the message', () => {
    expect(() => parseDatabaseFlags(['Bad=postgres://x'])).toThrow(/--db: expected name=uri/);
    expect(() => parseDatabaseFlags(['a=redis://x:1'])).toThrow(/postgres:\/\/host:port/);
    expect(() => parseDatabaseFlags(['a=postgres://x?sslmode=prefer'])).toThrow(
      /sslmode is one of/,
    );
    expect(() => parseDatabaseFlags(['a=postgres://x?sslrootcert=/nope'])).toThrow(
      /cannot read \/nope/,
    );
    expect(() => parseDatabaseFlags(['a=postgres://x', 'a=postgres://y'])).toThrow(/given twice/);
  });
});
