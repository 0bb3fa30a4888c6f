import { apiPaths, appResourceSchema, createAppSessionResponseSchema } from '@postern/contracts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { hostActor } from '../../../access-control/access/actor.js';
import {
  startRootAndLeafTunnels,
  type RootAndLeafTunnels,
} from '../../../modules/trusted-clusters/leaf-tunnels.testkit.js';
import { inviteUser, nextTotp } from '../../../testing/identity.testkit.js';
import { appBrowser, createAppRole, verifiedJwtClaims } from '../app-client.testkit.js';

/**
 * A trusted leaf's web app in the browser through the root (docs/trusted-clusters.md): launched
 * from the root's console, served on the root at `wiki.proxy.test` (the leaf's own address is
 * `wiki.leaf.test`), its requests carried through tunnels to the leaf, which decides with its role
 * map and signs the app's identity. A real node:http app with a WebSocket echo sits behind the leaf.
 */
let world: RootAndLeafTunnels;
let upstream: Server;
let wss: WebSocketServer;
const seen: { url: string; headers: Record<string, unknown> }[] = [];

beforeAll(async () => {
  world = await startRootAndLeafTunnels('leaf-web', { leafPublicAddr: 'leaf.test:3080' });
  upstream = createServer((req, res) => {
    seen.push({ url: req.url!, headers: req.headers });
    if (req.url === '/login') {
      res.writeHead(302, { location: `http://127.0.0.1:${upstreamPort()}/home` });
      return res.end();
    }
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`hello from ${req.url}`);
  });
  wss = new WebSocketServer({ server: upstream });
  wss.on('connection', (socket) => {
    socket.on('message', (data) => socket.send(`echo ${data.toString()}`));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  for (const [name, uri] of [
    ['wiki', `http://127.0.0.1:${upstreamPort()}`],
    ['cache', 'tcp://127.0.0.1:1'],
  ] as const) {
    await world.leaf.services.apps.create(
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name, labels: { env: 'test' } },
        spec: { uri },
      }),
      hostActor('test'),
    );
  }
  await createAppRole(world.leaf, 'leaf-web', { env: 'test' });
}, 60_000);

afterAll(async () => {
  wss?.close();
  upstream?.close();
  await world?.stop();
});

function upstreamPort() {
  return (upstream.address() as AddressInfo).port;
}

const browser = () => appBrowser(world.root, () => world.rootPort);
const get = (path: string, headers: Record<string, string> = {}) =>
  browser().get('wiki.proxy.test', path, headers);

/** `POST /sessions/app` on the root for a leaf's app, as the console's launcher sends it. */
async function launch(
  headers: Record<string, string>,
  extra: { fqdn?: string; name?: string; path?: string; mfa_response?: unknown } = {},
) {
  const fqdn = extra.fqdn ?? `${extra.name ?? 'wiki'}.leaf.test`;
  const { root } = world;
  return root.server.inject({
    method: 'POST',
    url: apiPaths.appSession,
    payload: {
      fqdn,
      cluster_name: 'leaf',
      public_addr: fqdn,
      path: extra.path ?? '/',
      ...(extra.mfa_response ? { mfa_response: extra.mfa_response } : {}),
    },
    headers: { ...headers, ...root.csrf.headers, cookie: `${headers.cookie}; ${root.csrf.cookie}` },
  });
}

/** Launches and exchanges on the root's host: the cookies the browser then holds there. */
async function signedIn(user: string, roles = ['access'], mfa_response?: unknown) {
  const headers = await world.root.signIn(roles, user);
  const answer = await launch(headers, { mfa_response });
  expect(answer.statusCode, answer.body).toBe(200);
  const exchange = new URL(createAppSessionResponseSchema.parse(answer.json()).redirectUrl);
  const res = await get(exchange.pathname + exchange.search);
  expect(res.status).toBe(302);
  const cookies = ([] as string[]).concat(res.headers['set-cookie'] ?? []);
  return { headers, cookie: cookies.map((line) => line.split(';')[0]).join('; ') };
}

const leafTunnelsOf = async (user: string) =>
  (await world.eventsOf(world.leaf)).filter(
    (e) => e.code === 'T2007I' && e.user === user && e.app_name === 'wiki',
  ).length;

describe("a leaf's web app through the root, in the browser", () => {
  it('is served at <name>.<root host>, with the leaf’s identity JWT and the app’s redirects fitted', async () => {
    const alice = await world.root.signIn(['access'], 'alice');
    const answer = await launch(alice, { path: '/start?x=1' });
    expect(answer.statusCode, answer.body).toBe(200);
    const { fqdn, redirectUrl } = createAppSessionResponseSchema.parse(answer.json());
    expect(fqdn).toBe('wiki.proxy.test');
    const exchange = new URL(redirectUrl);
    expect(exchange.origin).toBe('https://wiki.proxy.test:3080');
    const landed = await get(exchange.pathname + exchange.search);
    expect(landed.headers.location).toBe('/start?x=1');
    const cookies = ([] as string[]).concat(landed.headers['set-cookie'] ?? []);
    expect(cookies.map((line) => line.split('=')[0])).toEqual([
      '__Host-postern-app',
      '__Host-postern-app-cluster',
    ]);
    const cookie = cookies.map((line) => line.split(';')[0]).join('; ');

    const res = await get('/hello?q=1', {
      cookie: `${cookie}; theme=dark`,
      'postern-jwt-assertion': 'forged',
    });
    expect(res.status, res.body).toBe(200);
    expect(res.body).toBe('hello from /hello?q=1');
    const saw = seen.findLast((s) => s.url === '/hello?q=1')!;
    // Neither of the root's cookies reaches the app; the leaf's identity does, and is the leaf's.
    expect(saw.headers.cookie).toBe('theme=dark');
    const token = String(saw.headers['postern-jwt-assertion']);
    expect(await verifiedJwtClaims(world.leaf, token)).toMatchObject({ sub: 'alice' });
    expect(await verifiedJwtClaims(world.root, token)).toBeUndefined();

    const redirect = await get('/login', { cookie });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('https://wiki.proxy.test:3080/home');

    await world.root.services.appRequestAudit.flushAll();
    await vi.waitFor(async () => {
      const events = await world.eventsOf(world.root);
      expect(events).toContainEqual(
        expect.objectContaining({ code: 'T2007I', user: 'alice', cluster_name: 'leaf' }),
      );
      const chunks = events.filter((e) => e.code === 'T2008I' && e.user === 'alice');
      expect(chunks.flatMap((e) => e.requests as { path: string }[])).toContainEqual(
        expect.objectContaining({ path: '/hello', status: 200 }),
      );
    });
  });

  it('keeps a few tunnels to the leaf for many requests, and carries WebSockets', async () => {
    const { cookie } = await signedIn('walt');
    for (let i = 0; i < 12; i += 1) {
      expect((await get(`/page/${i}`, { cookie })).status).toBe(200);
    }
    // The leaf sees each tunnel as a session of its own: one held open, not one per request.
    await vi.waitFor(async () => expect(await leafTunnelsOf('walt')).toBe(1));
    const socket = new WebSocket(`ws://127.0.0.1:${world.rootPort}/socket`, {
      headers: { host: 'wiki.proxy.test', cookie },
    });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const echoed = new Promise((resolve) => socket.once('message', (d) => resolve(String(d))));
    socket.send('hi');
    expect(await echoed).toBe('echo hi');
    socket.close();
    // The session is bound to the host it was launched at: another app host does not take it.
    const session = cookie.split('; ')[0]!;
    expect((await browser().get('other.proxy.test', '/', { cookie: session })).status).toBe(404);
  });

  it('is refused at launch to a user the leaf maps to nothing, and for a TCP app', async () => {
    const eve = await world.root.signIn(['auditor'], 'eve');
    const refused = await launch(eve);
    expect(refused.statusCode).toBe(403);
    const alice = await world.root.signIn(['access'], 'alice');
    const tcp = await launch(alice, { name: 'cache' });
    expect(tcp.statusCode).toBe(400);
    expect(tcp.json().message).toContain('postern proxy app cache --cluster leaf');
    expect((await launch(alice, { name: 'nothing' })).statusCode).toBe(404);
    // A made-up cookie on the root's host for a leaf's app: nothing is forwarded.
    expect((await get('/x', { cookie: `__Host-postern-app=${'a'.repeat(43)}` })).status).toBe(404);
  });

  it('asks for the per-session check the leaf’s roles want, and the leaf takes the root’s word', async () => {
    // The root's `access` lets mona use apps here; the leaf maps `checked-access` to a role of its
    // own that asks for per-session MFA.
    const roles = ['access', 'checked-access'];
    const mona = await inviteUser(world.root, 'mona', { roles });
    const unchecked = await launch(await world.root.signIn(roles, 'mona'));
    expect(unchecked.statusCode).toBe(403);
    expect(unchecked.json().error.code).toBe('mfa_required');
    world.leaf.clock.advance(30_000);
    const code = nextTotp(world.root, mona.totpSecret!);
    const { cookie } = await signedIn('mona', roles, { totp_code: code });
    const res = await get('/checked', { cookie });
    expect(res.status, res.body).toBe(200);
    expect(res.body).toBe('hello from /checked');
  });

  it('shows the leaf’s reason when the leaf refuses the user after the launch (a lock there)', async () => {
    const { cookie } = await signedIn('lena');
    expect((await get('/', { cookie })).status).toBe(200);
    const lock = await world.leaf.services.locks.create(
      { targets: { user: 'lena' }, message: 'leaf incident' },
      hostActor('test'),
    );
    try {
      // The leaf ends the open tunnel; the next request's new one is refused with its reason.
      await vi.waitFor(async () => expect((await get('/next', { cookie })).status).toBe(403), {
        timeout: 5_000,
        interval: 100,
      });
      const reached = seen.filter((request) => request.url === '/refused').length;
      const refused = await get('/refused', { cookie });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatch(/^Forbidden: .*leaf incident/);
      expect(seen.filter((request) => request.url === '/refused')).toHaveLength(reached);
    } finally {
      await world.leaf.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });

  it('ends with a root lock; the next visit is sent to sign in for the leaf’s app again', async () => {
    const { cookie } = await signedIn('larry');
    expect((await get('/', { cookie })).status).toBe(200);
    await world.root.services.locks.create(
      { targets: { user: 'larry' }, message: 'incident' },
      hostActor('test'),
    );
    await vi.waitFor(async () => expect((await get('/again?y=2', { cookie })).status).toBe(302), {
      timeout: 5_000,
      interval: 100,
    });
    const to = new URL((await get('/again?y=2', { cookie })).headers.location!);
    expect(to.origin).toBe('https://proxy.test:3080');
    expect(to.pathname).toBe('/web/launch/wiki.proxy.test/leaf/wiki.proxy.test');
    expect(to.searchParams.get('path')).toBe('/again?y=2');
    // The launcher's call from that address finds the leaf's app by its name here.
    const alice = await world.root.signIn(['access'], 'alice');
    const again = await launch(alice, { fqdn: 'wiki.proxy.test' });
    expect(again.statusCode, again.body).toBe(200);
  });
});
