import { apiPaths, appResourceSchema, createJoinTokenRequestSchema } from '@postern/contracts';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { runAgent, type RunningAgent } from '../../agent/agent.js';
import { recordingLog } from '../../agent/tunnel-proxy.testkit.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { appBrowser, createAppRole } from './app-client.testkit.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { listenThroughProxy } from '../../cli/login/tunnel-listener.js';

// Apps reached only from an agent's host: `postern agent --app name=uri` joins a real listening
// Postern, reports its apps on the heartbeat, and every connection to them crosses its tunnel.

const run = promisify(execFile);
let app: TestApp;
let port: number;
let upstream: Server;
let agent: RunningAgent;
let dataDir: string;
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
const log = recordingLog();
let alice: Record<string, string>;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push({ url: req.url!, headers: req.headers });
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`inside says ${req.url}`);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const inside = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  app = await createTestApp({
    // The proxy's own `grafana`: an agent reporting that name must not take it over.
    apps: [
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name: 'grafana', labels: { env: 'prod' } },
        spec: { uri: 'http://127.0.0.1:1' },
      }),
    ],
  });
  await createAppRole(app, 'prod-apps', { env: 'prod' });
  await app.services.users.create({ name: 'alice', roles: ['prod-apps'] }, 'test');
  alice = await app.signIn(['prod-apps'], 'alice');
  ({ port } = await app.listenOnLoopback());

  const token = await app.services.joinTokens.create(
    createJoinTokenRequestSchema.parse({ roles: ['Node'] }),
    hostActor('test'),
  );
  dataDir = await mkdtemp(path.join(tmpdir(), 'postern-agent-apps-'));
  agent = await runAgent({
    proxy: `http://127.0.0.1:${port}`,
    token: token.token,
    labels: { env: 'prod' },
    dataDir: path.join(dataDir, 'agent'),
    insecure: false,
    apps: [
      { name: 'inside', uri: inside },
      { name: 'grafana', uri: inside },
      { name: 'cache', uri: 'tcp://127.0.0.1:6379' },
    ],
    log,
  });
  await vi.waitFor(() => expect(app.services.apps.get('inside')).toBeDefined(), {
    timeout: 10_000,
  });
});

afterAll(async () => {
  await agent?.stop();
  await app.close();
  await new Promise((resolve) => upstream.close(resolve));
  await rm(dataDir, { recursive: true, force: true });
});

describe('apps served by an agent', () => {
  it('are listed with the agent’s labels, online, as agent records', () => {
    const row = app.services.apps.rows().find((r) => r.resource.metadata.name === 'inside');
    expect(row?.status).toBe('online');
    expect(row?.resource).toMatchObject({
      source: 'agent',
      agentId: agent.nodeId,
      metadata: { labels: { env: 'prod' } },
    });
  });

  it('are reached through the agent’s tunnel, with the signed identity', async () => {
    const browser = appBrowser(app, () => port);
    const cookie = await browser.signedInCookie('inside.proxy.test', alice);
    // Both ends are on this machine: the dial is what shows the request took the tunnel.
    const dial = vi.spyOn(app.services.tunnels, 'dial');
    const res = await browser.get('inside.proxy.test', '/status?x=1', { cookie });
    expect(res.status, res.body).toBe(200);
    expect(dial).toHaveBeenCalledWith({ kind: 'app', name: 'inside' });
    dial.mockRestore();
    expect(res.body).toBe('inside says /status?x=1');
    const request = seen.findLast((s) => s.url === '/status?x=1');
    expect(request?.headers['postern-jwt-assertion']).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(request?.headers['x-forwarded-host']).toBe('inside.proxy.test');
  });

  it('cannot take over an app the proxy defines', () => {
    expect(app.services.apps.get('grafana')).toMatchObject({
      source: 'config',
      spec: { uri: 'http://127.0.0.1:1' },
    });
  });

  it('carries a TCP app through the tunnel too (redis-cli through postern proxy app)', async () => {
    const { home } = await signedInHome(app, port, 'alice', ['prod-apps']);
    const listener = await listenThroughProxy(
      { POSTERN_HOME: home },
      { name: 'cache', path: apiPaths.appTcp('cache') },
      0,
    );
    const dial = vi.spyOn(app.services.tunnels, 'dial');
    try {
      const { stdout } = await run('redis-cli', ['-p', String(listener.port), 'PING'], {
        timeout: 10_000,
      });
      expect(stdout.trim()).toBe('PONG');
      expect(dial).toHaveBeenCalledWith({ kind: 'app', name: 'cache' });
    } finally {
      dial.mockRestore();
      await listener.close();
      await rm(home, { recursive: true, force: true });
    }
  });

  it('go offline once the agent stops reporting them', async () => {
    await agent.stop();
    // Three heartbeat intervals (60 s each here) without a report.
    app.clock.advance(181_000);
    const row = app.services.apps.rows().find((r) => r.resource.metadata.name === 'inside');
    expect(row?.status ?? 'gone').not.toBe('online');
  });
});
