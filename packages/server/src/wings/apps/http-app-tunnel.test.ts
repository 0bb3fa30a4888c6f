import { apiPaths, appResourceSchema } from '@postern/contracts';
import { createHash, randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { hostActor } from '../../access-control/access/actor.js';
import { listenThroughProxy, type TunnelListener } from '../../cli/login/tunnel-listener.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { createAppRole, verifiedJwtClaims, type SeenRequest } from './app-client.testkit.js';

// `postern proxy app NAME` for an HTTP app: curl or a script talks plain HTTP to the local
// listener, and each request reaches the app as a browser's does (identity JWT, header rules,
// per-request audit), through a listening Postern and a real upstream (node:http + ws).

let app: TestApp;
let upstream: Server;
let home: string;
let listener: TunnelListener;
const seen: SeenRequest[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    // A body is answered with its size and digest, read as it streams.
    const hash = createHash('sha256');
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      hash.update(chunk);
    });
    req.on('end', () => {
      if (req.url === '/old') {
        // The app redirects to the address it believes it has.
        res.writeHead(302, { location: `http://${req.headers.host}/new?from=old` });
        return res.end();
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(req.method === 'POST' ? `${size} ${hash.digest('hex')}` : `hello from ${req.url}`);
    });
  });
  new WebSocketServer({ server: upstream }).on('connection', (socket) =>
    socket.on('message', (data) => socket.send(`echo ${data.toString()}`)),
  );
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const uri = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  app = await createTestApp({
    apps: [
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name: 'grafana', labels: { env: 'prod' } },
        spec: { uri, rewrite: { headers: [{ name: 'X-Team', value: '{{internal.logins}}' }] } },
      }),
    ],
  });
  await createAppRole(app, 'prod-apps', { env: 'prod' });
  await app.services.users.create({ name: 'alice', roles: ['prod-apps'], logins: ['ops'] }, 'test');
  const { port } = await app.listenOnLoopback();
  ({ home } = await signedInHome(app, port, 'alice', ['prod-apps']));
  listener = await listenThroughProxy(
    { POSTERN_HOME: home },
    { name: 'grafana', path: apiPaths.appTcp('grafana') },
    0,
  );
});

afterAll(async () => {
  await listener?.close();
  await app?.close();
  await new Promise((resolve) => upstream?.close(resolve));
  if (home) await rm(home, { recursive: true, force: true });
});

/** One request to the local listener, as curl sends it. */
function local(
  method: string,
  path: string,
  {
    headers = {},
    body,
    agent,
  }: { headers?: Record<string, string>; body?: Buffer; agent?: Agent | false },
) {
  return new Promise<{
    status: number;
    body: string;
    socket: unknown;
    headers: Record<string, unknown>;
  }>((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: listener.port, method, path, headers, agent },
      (res) => {
        const socket = res.socket;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, body: text, socket, headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const auditOf = async (event: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 500 })
  ).events.filter((e) => e.event === event);

describe('postern proxy app (HTTP apps)', () => {
  it('forwards plain HTTP with the identity JWT, the app’s header rules, and no forged identity', async () => {
    const res = await local('GET', '/api/health?full=1', {
      headers: { 'postern-jwt-assertion': 'forged', 'x-postern-user': 'mallory' },
    });
    expect(res.status, res.body).toBe(200);
    expect(res.body).toBe('hello from /api/health?full=1');
    const saw = seen.findLast((s) => s.url === '/api/health?full=1')!;
    expect(saw.headers['x-postern-user']).toBeUndefined();
    expect(saw.headers['x-team']).toBe('ops');
    expect(saw.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(saw.headers['x-forwarded-host']).toBe('grafana.proxy.test');
    const claims = await verifiedJwtClaims(app, String(saw.headers['postern-jwt-assertion']));
    expect(claims).toMatchObject({ sub: 'alice', roles: ['prod-apps'] });
    // The certificate's end bounds the token, as the web session's does for a browser.
    expect(Number(claims?.exp) * 1000).toBeLessThanOrEqual(Date.now() + 12 * 3_600_000 + 60_000);
  });

  it('streams a request body through whole, and keeps one connection for several requests', async () => {
    const body = randomBytes(8 * 1024 * 1024);
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await local('POST', '/upload', { body, agent });
      expect(first.body).toBe(`${body.length} ${createHash('sha256').update(body).digest('hex')}`);
      const second = await local('GET', '/again', { agent });
      expect(second.body).toBe('hello from /again');
      expect(second.socket).toBe(first.socket);
    } finally {
      agent.destroy();
    }
  });

  it('points the app’s redirects at the local listener, not at the public host', async () => {
    const res = await local('GET', '/old', {});
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`http://127.0.0.1:${listener.port}/new?from=old`);
  });

  it('carries a WebSocket to the app', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${listener.port}/live`);
    const reply = await new Promise<string>((resolve, reject) => {
      socket.once('open', () => socket.send('ping'));
      socket.once('message', (data) => resolve(data.toString()));
      socket.once('error', reject);
    });
    socket.close();
    expect(reply).toBe('echo ping');
  });

  it('audits each connection’s start and end, and its requests', async () => {
    await local('GET', '/audited', {});
    await vi.waitFor(
      async () => {
        const requests = (await auditOf('app.session.chunk')).flatMap(
          (e) => (e.requests as { method: string; path: string; status: number }[]) ?? [],
        );
        expect(requests).toContainEqual(
          expect.objectContaining({ method: 'GET', path: '/audited', status: 200 }),
        );
        expect((await auditOf('app.session.start')).length).toBeGreaterThan(0);
        expect((await auditOf('app.session.end')).length).toBeGreaterThan(0);
      },
      { timeout: 15_000 },
    );
  });

  it('ends an open connection when the user is locked, and refuses the next', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const before = await local('GET', '/before-lock', { agent });
      expect(before.status).toBe(200);
      const closed = new Promise((resolve) =>
        (before.socket as NodeJS.EventEmitter).once('close', resolve),
      );
      await app.services.locks.create(
        { targets: { user: 'alice' }, message: 'incident' },
        hostActor('test'),
      );
      await closed;
      await expect(local('GET', '/after-lock', { agent: false })).rejects.toThrow();
      expect(seen.some((s) => s.url === '/after-lock')).toBe(false);
    } finally {
      agent.destroy();
    }
  });
});
