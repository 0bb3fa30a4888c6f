import { scriptPaths } from '@postern/contracts';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from './install-script.js';
import {
  expectRefusedScript,
  installScriptWorld,
  runInstalledAgent,
} from './install-script.testkit.js';

// install-database.sh as an admin runs it: `curl … | bash` on a host that reaches the database,
// which starts the real `postern agent --db` (the built binary) in the foreground. What reaches
// the agent's command line is checked with a stand-in for postern that records its arguments.

const run = promisify(execFile);
const world = installScriptWorld();
let dbToken: string;
let appToken: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-install-db-'));
  dbToken = await world.token(['Db']);
  appToken = await world.token(['App']);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fetchScript = (token: string, query: Record<string, string>) =>
  world.fetchScript(scriptPaths.installDatabase(token, { name: '', uri: '' }), query);

describe('GET /scripts/:token/install-database.sh', () => {
  const uri = 'postgres://db1.internal:5432?sslmode=verify-full';

  it('refuses an unknown token and a token of another kind with a script that fails', async () => {
    for (const wrong of ['f'.repeat(32), appToken]) {
      const res = await fetchScript(wrong, { name: 'orders', uri });
      expect(res.statusCode).toBe(404);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain('this install link is not valid');
      expect(res.body).not.toContain(wrong);
    }
  });

  it('refuses a bad name or uri, saying which, in a script that fails', async () => {
    const refused = async (query: Record<string, string>, why: string) =>
      expectRefusedScript(await fetchScript(dbToken, query), why);
    await refused({ name: 'Orders', uri }, 'name: database names are DNS labels');
    await refused({ name: 'orders' }, 'uri: ');
    await refused(
      { name: 'orders', uri: "postgres://db1:5432?sslrootcert=/x'$(id)'" },
      'uri: only URL characters (no quotes, spaces or backslashes)',
    );
    await refused(
      { name: 'orders', uri: 'redis://db1:6379' },
      'uri: expected postgres://host:port or mysql://host:port',
    );
    await refused(
      { name: 'orders', uri: 'postgres://admin:secret@db1:5432' },
      'uri: no user or password in the uri',
    );
    await refused(
      { name: 'orders', uri: 'postgres://db1:5432?sslmode=disable' },
      'uri: sslmode is one of verify-full, verify-ca, insecure',
    );
    await refused(
      { name: 'orders', uri: 'postgres://db1:5432?sslrootcert=ca.crt' },
      'uri: sslrootcert is an absolute path on the agent host',
    );
    await refused(
      { name: 'orders', uri: 'postgres://db1:5432?application_name=x' },
      'uri: unknown parameter application_name',
    );
  });

  it('puts a hostile but valid uri on the agent’s command line as it is, running nothing', async () => {
    // $, (, ), ; and ! are URL characters: the script must quote them, never run them.
    const hostile = 'postgres://db1.internal:5432?sslrootcert=/tmp/$(touch$IFS./pwned);x!*';
    const res = await fetchScript(dbToken, { name: 'orders', uri: hostile });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/x-shellscript/);
    expect(res.body).toContain(`resource_uri=${shellQuote(hostile)}`);
    expect(res.body).toContain(`join_token=${shellQuote(dbToken)}`);
    expect(res.body).toContain('service="postern-$resource_kind-$resource_name"');

    const fake = path.join(dir, 'fake-postern');
    const argsFile = path.join(dir, 'args');
    await writeFile(fake, `#!/usr/bin/env bash\nprintf '%s\\n' "$@" >${shellQuote(argsFile)}\n`);
    await chmod(fake, 0o755);
    const dataDir = path.join(dir, 'data');
    await run('bash', ['-c', res.body], {
      cwd: dir,
      env: {
        ...process.env,
        POSTERN_BIN: fake,
        POSTERN_DATA_DIR: dataDir,
        POSTERN_FOREGROUND: '1',
      },
    });
    expect((await readFile(argsFile, 'utf8')).split('\n').slice(0, -1)).toEqual([
      'agent',
      '--proxy',
      world.baseUrl,
      '--token',
      dbToken,
      '--db',
      `orders=${hostile}`,
      '--data-dir',
      dataDir,
    ]);
    await expect(readFile(path.join(dir, 'pwned'))).rejects.toThrow(/ENOENT/);
  });

  it('runs a real agent that serves the database through its tunnel, joined with a Db token', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'postern-install-db-agent-'));
    const uri = 'postgres://127.0.0.1:5999?sslmode=verify-ca';
    const url = `${world.baseUrl}${scriptPaths.installDatabase(dbToken, { name: 'orders', uri })}`;
    const databases = () => world.app.services.databases;
    try {
      await runInstalledAgent(url, dataDir, (output) => {
        expect(databases().get('orders'), output).toMatchObject({ source: 'agent' });
        expect(output).toContain(`postern: serving orders (${uri})`);
      });
      expect(databases().get('orders')?.spec).toMatchObject({
        protocol: 'postgres',
        uri: '127.0.0.1:5999',
        tls: { mode: 'verify-ca' },
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
