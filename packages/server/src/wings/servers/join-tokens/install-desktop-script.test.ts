import { scriptPaths } from '@postern/contracts';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { shellQuote } from './install-script.js';

// install-desktop.sh as an admin runs it: `curl … | bash` on a host that reaches a VNC desktop,
// which starts the real `postern agent --desktop` (the built binary) in the foreground.

const run = promisify(execFile);
const postern = fileURLToPath(new URL('../../../../bin/postern.js', import.meta.url));
let app: TestApp;
let baseUrl: string;
let desktopToken: string;
let dbToken: string;
let dir: string;

const token = (roles: ('WindowsDesktop' | 'Db')[]) =>
  app.services.joinTokens
    .create(
      { roles, join_method: 'token', allow: [], suggested_agent_matcher_labels: {} },
      hostActor('cli:test'),
    )
    .then((issued) => issued.token);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-install-desktop-'));
  app = await createTestApp();
  const { port } = await app.listenOnLoopback();
  app.config.publicAddr = { host: '127.0.0.1', port };
  app.config.insecureNoTls = true;
  baseUrl = `http://127.0.0.1:${port}`;
  desktopToken = await token(['WindowsDesktop']);
  dbToken = await token(['Db']);
});
afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

const fetchScript = (tokenValue: string, query: Record<string, string>) =>
  app.server.inject({
    method: 'GET',
    url: `${scriptPaths.installDesktop(tokenValue, { name: '', uri: '' }).split('?')[0]}?${new URLSearchParams(query)}`,
  });

describe('GET /scripts/:token/install-desktop.sh', () => {
  it('refuses a token of another kind, and a bad name or uri, with a script that fails', async () => {
    const wrong = await fetchScript(dbToken, { name: 'build', uri: 'vnc://127.0.0.1:5901' });
    expect(wrong.statusCode).toBe(404);
    expect(wrong.body).not.toContain(dbToken);
    const refused = async (query: Record<string, string>, why: string) => {
      const res = await fetchScript(desktopToken, query);
      expect(res.statusCode, res.body).toBe(400);
      const ran = await run('sh', ['-c', res.body]).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(ran).toMatchObject({ code: 1, stderr: expect.stringContaining(why) });
    };
    await refused({ name: 'Build', uri: 'vnc://h:5901' }, 'name: desktop names are DNS labels');
    await refused({ name: 'build', uri: 'rdp://h:3389' }, 'uri: expected vnc://host:port');
    await refused({ name: 'build', uri: 'vnc://:secret@h:5901' }, 'uri: no password in the uri');
    await refused(
      { name: 'build', uri: 'vnc://h:5901?password_file=pass' },
      'uri: password_file is an absolute path on the desktop host',
    );
  });

  it('runs a real agent that serves the desktop through its tunnel, its password file read there', async () => {
    const passwordFile = path.join(dir, 'vnc-pass');
    await writeFile(passwordFile, 'secret12\n', { mode: 0o600 });
    const uri = `vnc://127.0.0.1:5999?password_file=${passwordFile}`;
    const url = `${baseUrl}${scriptPaths.installDesktop(desktopToken, { name: 'build', uri })}`;
    const dataDir = path.join(dir, 'agent');
    const child = spawn('bash', ['-c', `curl -fsS ${shellQuote(url)} | bash`], {
      env: {
        ...process.env,
        POSTERN_BIN: postern,
        POSTERN_DATA_DIR: dataDir,
        POSTERN_FOREGROUND: '1',
      },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      await vi.waitFor(
        () => expect(app.services.desktops.get('build'), output).toMatchObject({ source: 'agent' }),
        { timeout: 20_000, interval: 200 },
      );
      expect(app.services.desktops.get('build')?.spec).toMatchObject({
        protocol: 'vnc',
        addr: '127.0.0.1:5999',
      });
      expect(JSON.stringify(app.services.desktops.get('build'))).not.toContain('secret12');
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
});
