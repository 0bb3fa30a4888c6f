import { scriptPaths } from '@postern/contracts';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { shellQuote } from './install-script.js';

// install-app.sh as an admin runs it: `curl … | bash` on a host that reaches the app, which
// starts the real `postern agent --app` (the built binary) in the foreground.

const postern = fileURLToPath(new URL('../../../../bin/postern.js', import.meta.url));
let app: TestApp;
let baseUrl: string;
let appToken: string;
let upstream: Server;
let uri: string;

beforeAll(async () => {
  upstream = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  uri = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
  app = await createTestApp();
  const { port } = await app.listenOnLoopback();
  app.config.publicAddr = { host: '127.0.0.1', port };
  app.config.insecureNoTls = true;
  baseUrl = `http://127.0.0.1:${port}`;
  const issued = await app.services.joinTokens.create(
    { roles: ['App'], join_method: 'token', allow: [], suggested_agent_matcher_labels: {} },
    hostActor('cli:test'),
  );
  appToken = issued.token;
});
afterAll(async () => {
  await app.close();
  await new Promise((resolve) => upstream.close(resolve));
});

const fetchScript = (token: string, query: Record<string, string>) =>
  app.server.inject({
    method: 'GET',
    url: `${scriptPaths.installApp(token, { name: '', uri: '' }).split('?')[0]}?${new URLSearchParams(query)}`,
  });

describe('GET /scripts/:token/install-app.sh', () => {
  it('refuses an unknown token with a script that fails, and a bad name or uri saying which', async () => {
    const unknown = await fetchScript('f'.repeat(32), { name: 'grafana', uri });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('this install link is not valid');
    const badName = await fetchScript(appToken, { name: 'Bad_Name', uri });
    expect(badName.statusCode).toBe(400);
    expect(badName.body).toMatch(/name: app names are DNS labels/);
    const quoted = await fetchScript(appToken, { name: 'grafana', uri: "http://x/'$(id)'" });
    expect(quoted.statusCode).toBe(400);
    expect(quoted.body).toMatch(/uri: only URL characters/);
    expect(quoted.headers['cache-control']).toBe('no-store');
  });

  it('runs a real agent that serves the app through its tunnel, joined with an App token', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'postern-install-app-'));
    const url = `${baseUrl}${scriptPaths.installApp(appToken, { name: 'notes', uri })}`;
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
        () => expect(app.services.apps.get('notes'), output).toMatchObject({ source: 'agent' }),
        { timeout: 20_000, interval: 200 },
      );
      expect(app.services.apps.get('notes')?.spec.uri).toBe(uri);
      expect(output).toContain(`postern: serving notes (${uri}) through ${baseUrl}`);
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
