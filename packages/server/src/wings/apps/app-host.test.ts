import { apiPaths, appResourceSchema, type AppResourceInput } from '@postern/contracts';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { hostActor } from '../../access-control/access/actor.js';
import { approvedRequest } from '../../testing/access-requests.testkit.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { inviteUser, nextTotp } from '../../testing/identity.testkit.js';
import { createSessionMfaRole } from '../../testing/roles.testkit.js';
import {
  appBrowser,
  createAppRole,
  verifiedJwtClaims,
  type SeenRequest,
} from './app-client.testkit.js';

// A real listening Postern in front of a real upstream (node:http with a WebSocket echo), driven
// by Host headers as a browser on the app's own origin sends them.

let app: TestApp;
let upstream: Server;
let wss: WebSocketServer;
let port: number;
const seen: SeenRequest[] = [];
let alice: Record<string, string>;

const resource = (input: AppResourceInput) => appResourceSchema.parse(input);

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers });
    if (req.url === '/login') {
      res.writeHead(302, { location: `http://127.0.0.1:${upstreamPort()}/home` });
      res.end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'set-cookie': 'app=1; Domain=127.0.0.1' });
    res.end(`hello from ${req.url}`);
  });
  wss = new WebSocketServer({ server: upstream });
  wss.on('connection', (socket, req) => {
    seen.push({ method: 'WS', url: req.url!, headers: req.headers });
    socket.on('message', (data) => socket.send(`echo ${data.toString()}`));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const uri = `http://127.0.0.1:${upstreamPort()}`;
  app = await createTestApp({
    apps: [
      resource({
        kind: 'app',
        metadata: { name: 'grafana', labels: { env: 'prod' } },
        spec: { uri },
      }),
      resource({ kind: 'app', metadata: { name: 'wiki', labels: { env: 'prod' } }, spec: { uri } }),
    ],
  });
  await createAppRole(app, 'prod-apps', { env: 'prod' });
  alice = await app.signIn(['prod-apps'], 'alice');
  ({ port } = await app.listenOnLoopback());
});

afterAll(async () => {
  await app.close();
  wss.close();
  await new Promise((resolve) => upstream.close(resolve));
});

function upstreamPort() {
  return (upstream.address() as AddressInfo).port;
}

const browser = () => appBrowser(app, () => port);
const get = (host: string, path: string, headers: Record<string, string> = {}) =>
  browser().get(host, path, headers);
const launch = (fqdn: string, headers = alice, path = '/') => browser().launch(fqdn, headers, path);
const signedInCookie = (fqdn = 'grafana.proxy.test', headers = alice) =>
  browser().signedInCookie(fqdn, headers);

describe('an app host', () => {
  it('sends a browser without a session to the launcher, keeping the path and query', async () => {
    const res = await get('grafana.proxy.test', '/d/abc?from=now');
    expect(res.status).toBe(302);
    const to = new URL(res.headers.location!);
    expect(to.origin).toBe('https://proxy.test:3080');
    expect(to.pathname).toBe('/web/launch/grafana.proxy.test/test-cluster/grafana.proxy.test');
    expect(to.searchParams.get('path')).toBe('/d/abc?from=now');
    expect(seen.some((s) => s.url === '/d/abc?from=now')).toBe(false);
  });

  it('sets the session cookie on the app’s origin only, HttpOnly, Secure, Lax, and lands on the path', async () => {
    const exchange = await launch('grafana.proxy.test', alice, '/d/abc?x=1');
    const res = await get('grafana.proxy.test', exchange.pathname + exchange.search);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/d/abc?x=1');
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(
      /^__Host-postern-app=[\w-]{43}; Path=\/; Expires=.+; Secure; HttpOnly; SameSite=Lax$/,
    );
    expect(cookie).not.toMatch(/Domain/i);
  });

  it('refuses a state replayed, used at another app, or made up', async () => {
    const exchange = await launch('grafana.proxy.test');
    const path = exchange.pathname + exchange.search;
    expect((await get('grafana.proxy.test', path)).status).toBe(302);
    expect((await get('grafana.proxy.test', path)).status).toBe(403);
    const other = await launch('grafana.proxy.test');
    expect((await get('wiki.proxy.test', other.pathname + other.search)).status).toBe(403);
    expect((await get('grafana.proxy.test', other.pathname + other.search)).status).toBe(403);
    expect(
      (await get('grafana.proxy.test', '/x-postern-auth?state=' + 'a'.repeat(43))).status,
    ).toBe(403);
  });

  it('never redirects off the app after the exchange (no open redirect)', async () => {
    for (const path of ['//evil.example/x', 'https://evil.example/', '/\\evil.example']) {
      const exchange = await launch('grafana.proxy.test', alice, path);
      const res = await get('grafana.proxy.test', exchange.pathname + exchange.search);
      expect(res.headers.location).toBe('/');
    }
  });

  it('forwards with a JWT the JWKS verifies, X-Forwarded-*, and no identity the client made up', async () => {
    const cookie = await signedInCookie();
    const res = await get('grafana.proxy.test', '/api/health?full=1', {
      cookie: `${cookie}; theme=dark`,
      'postern-jwt-assertion': 'forged',
      'x-forwarded-for': '6.6.6.6',
    });
    expect(res.status, res.body).toBe(200);
    expect(res.body).toBe('hello from /api/health?full=1');
    const upstreamSaw = seen.findLast((s) => s.url === '/api/health?full=1')!;
    expect(upstreamSaw.headers.cookie).toBe('theme=dark');
    expect(upstreamSaw.headers['x-forwarded-host']).toBe('grafana.proxy.test');
    expect(upstreamSaw.headers['x-forwarded-proto']).toBe('https');
    expect(upstreamSaw.headers['x-forwarded-for']).toBe('127.0.0.1');
    const token = String(upstreamSaw.headers['postern-jwt-assertion']);
    expect(token).not.toBe('forged');
    const claims = await verifiedJwtClaims(app, token);
    expect(claims).toMatchObject({
      sub: 'alice',
      username: 'alice',
      roles: ['prod-apps'],
      aud: ['https://grafana.proxy.test:3080'],
    });
    expect(Number(claims?.exp) * 1000).toBeGreaterThan(Date.now());
    // The app's redirect to its own address comes back on the app's public address, and its
    // cookie binds to the app's host.
    const login = await get('grafana.proxy.test', '/login', { cookie });
    expect(login.headers.location).toBe('https://grafana.proxy.test:3080/home');
    expect(String(res.headers['set-cookie'])).toBe('app=1');
  });

  it('refuses TRACE, which would echo the identity back', async () => {
    const cookie = await signedInCookie();
    const before = seen.length;
    const res = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/',
          method: 'TRACE',
          headers: { host: 'grafana.proxy.test', cookie },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode!);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(res).toBe(405);
    expect(seen.length).toBe(before);
  });

  it('answers 404 for a host under the proxy that is no app, and leaves the console alone', async () => {
    const unknown = await get('nope.proxy.test', '/web');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatch(/no application/);
    const ping = await get('proxy.test', apiPaths.ping);
    expect(ping.status).toBe(200);
    expect(JSON.parse(ping.body)).toHaveProperty('server_version');
  });

  it('lists an app session on Active Sessions (not joinable) until its sign-in ends', async () => {
    // `access` may list sessions (ssh_session list).
    const carol = await app.signIn(['prod-apps', 'access'], 'carol');
    const carolsCookie = await signedInCookie('wiki.proxy.test', carol);
    const listed = async () => {
      const res = await app.server.inject({
        method: 'GET',
        url: apiPaths.activeSessions('test-cluster'),
        headers: carol,
      });
      expect(res.statusCode, res.body).toBe(200);
      const { sessions } = res.json() as { sessions: Record<string, unknown>[] };
      return sessions.filter((session) => session.owner === 'carol');
    };
    await vi.waitFor(async () =>
      expect(await listed()).toEqual([
        expect.objectContaining({
          kind: 'app',
          server_hostname: 'wiki',
          server_addr: 'wiki.proxy.test',
          login: '',
          participantModes: [],
          parties: [expect.objectContaining({ user: 'carol' })],
        }),
      ]),
    );
    // Its last activity is its last request, gathered and written in the background.
    const [started] = await listed();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await get('wiki.proxy.test', '/', { cookie: carolsCookie })).status).toBe(200);
    await app.services.appSessions.writeActivity();
    const [active] = await listed();
    expect(Date.parse(String(active!.last_active))).toBeGreaterThan(
      Date.parse(String(started!.last_active)),
    );

    const logout = await app.server.inject({
      method: 'DELETE',
      url: '/v1/webapi/sessions/web',
      headers: { ...carol, ...app.csrf.headers, cookie: `${carol.cookie}; ${app.csrf.cookie}` },
    });
    expect(logout.statusCode).toBeLessThan(300);
    // Without a request to the app: the sweep finds the ended sign-in.
    await app.services.appSessions.sweep((name) => app.services.apps.get(name));
    const other = await app.signIn(['prod-apps', 'access'], 'carol');
    await vi.waitFor(async () => {
      const res = await app.server.inject({
        method: 'GET',
        url: apiPaths.activeSessions('test-cluster'),
        headers: other,
      });
      const { sessions } = res.json() as { sessions: { owner: string; kind: string }[] };
      expect(sessions.filter((s) => s.owner === 'carol' && s.kind === 'app')).toEqual([]);
    });
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 1000,
    });
    expect(events).toContainEqual(
      expect.objectContaining({
        event: 'app.session.end',
        user: 'carol',
        app_name: 'wiki',
        reason: 'signed out',
      }),
    );
  });

  it('ends the app session with the sign-in: logout, and the open WebSocket closes', async () => {
    const bob = await app.signIn(['prod-apps'], 'bob');
    const cookie = await signedInCookie('grafana.proxy.test', bob);
    const socket = new WebSocket(`ws://127.0.0.1:${port}/socket`, {
      headers: { host: 'grafana.proxy.test', cookie },
    });
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const echoed = new Promise((resolve) =>
      socket.once('message', (data) => resolve(String(data))),
    );
    socket.send('hi');
    expect(await echoed).toBe('echo hi');
    expect(seen.findLast((s) => s.method === 'WS')!.headers.cookie).toBeUndefined();

    const logout = await app.server.inject({
      method: 'DELETE',
      url: '/v1/webapi/sessions/web',
      headers: { ...bob, ...app.csrf.headers, cookie: `${bob.cookie}; ${app.csrf.cookie}` },
    });
    expect(logout.statusCode).toBeLessThan(300);
    await vi.waitFor(() => expect((socket as WebSocket).readyState).toBe(WebSocket.CLOSED), {
      timeout: 8_000,
    });
    await closed;
    const after = await get('grafana.proxy.test', '/', { cookie });
    expect(after.status).toBe(302);
    expect(after.headers.location).toMatch(/\/web\/launch\//);
  });

  it('refuses an upgrade without a session (401) and lets a lock end the session', async () => {
    const anonymous = new WebSocket(`ws://127.0.0.1:${port}/socket`, {
      headers: { host: 'grafana.proxy.test' },
    });
    const refused = await new Promise<number>((resolve) =>
      anonymous.once('unexpected-response', (_req, res) => resolve(res.statusCode!)),
    );
    expect(refused).toBe(401);

    // `access` may list sessions (ssh_session list).
    const carol = await app.signIn(['prod-apps', 'access'], 'carol');
    const cookie = await signedInCookie('grafana.proxy.test', carol);
    expect((await get('grafana.proxy.test', '/', { cookie })).status).toBe(200);
    await app.services.locks.create(
      { targets: { user: 'carol' }, message: 'incident' },
      hostActor('test'),
    );
    // The lock reaches the watcher, and the session's last check (cached for a second) expires.
    await vi.waitFor(
      async () => expect((await get('grafana.proxy.test', '/', { cookie })).status).toBe(302),
      { timeout: 5_000, interval: 100 },
    );
  });

  it("a lock on the device that answered a launch's per-session check ends that app session", async () => {
    await createSessionMfaRole(app);
    const tina = await inviteUser(app, 'tina', { roles: ['prod-apps', 'checked'] });
    const [phone] = (await app.services.users.store.credentials('tina')).devices;
    // Signed in with no device (as through SSO): the app session stands on the check's alone.
    const headers = await app.signIn(['prod-apps', 'checked'], 'tina');
    const mfa_response = { totp_code: nextTotp(app, tina.totpSecret!) };
    const exchange = await browser().launch('grafana.proxy.test', headers, '/', { mfa_response });
    const exchanged = await get('grafana.proxy.test', exchange.pathname + exchange.search);
    const cookie = String(exchanged.headers['set-cookie']).split(';')[0]!;
    expect((await get('grafana.proxy.test', '/', { cookie })).status).toBe(200);
    await app.services.locks.create(
      { targets: { mfa_device: phone!.id }, message: 'phone lost' },
      hostActor('test'),
    );
    await vi.waitFor(
      async () => expect((await get('grafana.proxy.test', '/', { cookie })).status).toBe(302),
      { timeout: 5_000, interval: 100 },
    );
  });

  it('an app session launched from a session that assumed a request ends on a lock on the request', async () => {
    // The request is what reaches the app: ursula's own role does not.
    const requestId = await approvedRequest(app, 'ursula', ['prod-apps']);
    const plain = await app.signIn([], 'ursula');
    const renewed = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/sessions/web/renew',
      headers: plain,
      payload: { requestId },
    });
    const headers = {
      cookie: String(renewed.headers['set-cookie']).split(';')[0]!,
      authorization: `Bearer ${renewed.json().token}`,
    };
    const cookie = await signedInCookie('grafana.proxy.test', headers);
    expect((await get('grafana.proxy.test', '/', { cookie })).status).toBe(200);
    await app.services.locks.create(
      { targets: { access_request: requestId }, message: 'approved in error' },
      hostActor('test'),
    );
    await vi.waitFor(
      async () => expect((await get('grafana.proxy.test', '/', { cookie })).status).toBe(302),
      { timeout: 5_000, interval: 100 },
    );
  });
});
