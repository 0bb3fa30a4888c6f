import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { apiPaths, appResourceSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { hostActor } from '../../access-control/access/actor.js';
import {
  POSTERN_MFA_DEVICE_EXTENSION,
  POSTERN_SESSION_MFA_DEVICE_EXTENSION,
} from '../../ssh/ca.service.js';
import { signRequest } from '../../ssh/signed-request.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { createAppRole } from './app-client.testkit.js';
import { fetchApps, printApps } from './cli/apps.commands.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { inviteUser, nextTotp } from '../../testing/identity.testkit.js';
import { tunnelCertificates } from '../../cli/login/session-mfa.js';
import { listenThroughProxy, type TunnelListener } from '../../cli/login/tunnel-listener.js';
import { createSessionMfaRole } from '../../testing/roles.testkit.js';

// `postern proxy app` against the machine's real Redis (127.0.0.1:6379, as CI has it), through a
// listening Postern: redis-cli talks to the local listener, the bytes cross the proxy's port.

const run = promisify(execFile);
let app: TestApp;
let port: number;
let home: string;
let listener: TunnelListener;
let key: Awaited<ReturnType<typeof signedInHome>>['key'];

const tcpApp = (name: string, uri: string, labels: Record<string, string>) =>
  appResourceSchema.parse({ kind: 'app', metadata: { name, labels }, spec: { uri } });

beforeAll(async () => {
  app = await createTestApp({
    apps: [
      tcpApp('cache', 'tcp://127.0.0.1:6379', { env: 'prod' }),
      tcpApp('secret-cache', 'tcp://127.0.0.1:6379', { env: 'finance' }),
    ],
  });
  await createAppRole(app, 'prod-apps', { env: 'prod' });
  await app.services.users.create({ name: 'alice', roles: ['prod-apps'] }, 'test');
  ({ port } = await app.listenOnLoopback());
  ({ home, key } = await signedInHome(app, port, 'alice', ['prod-apps']));
  listener = await listenThroughProxy(
    { POSTERN_HOME: home },
    { name: 'cache', path: apiPaths.appTcp('cache') },
    0,
  );
});

afterAll(async () => {
  await listener?.close();
  await app.close();
  await rm(home, { recursive: true, force: true });
});

const redis = (...args: string[]) =>
  run('redis-cli', ['-h', '127.0.0.1', '-p', String(listener.port), ...args], { timeout: 10_000 });

describe('postern apps ls', () => {
  it('lists the apps the user’s roles reach, and no other', async () => {
    const apps = await fetchApps({ POSTERN_HOME: home });
    expect(apps.map((each) => [each.name, each.isTcp])).toEqual([['cache', true]]);
    const lines: string[] = [];
    printApps(apps, (line) => lines.push(line));
    expect(lines[0]).toMatch(/^NAME\s+TYPE\s+ADDRESS\s+DESCRIPTION\s+LABELS$/);
    expect(lines[1]).toMatch(/^cache\s+tcp\s+-\s+env=prod$/);
    expect(lines.at(-1)).toMatch(/postern proxy app NAME/);
  });
});

describe('postern proxy app (TCP apps)', () => {
  it('carries a real client’s protocol to the app: redis-cli through the tunnel', async () => {
    expect((await redis('PING')).stdout.trim()).toBe('PONG');
    const value = `tunnelled-${Date.now()}`;
    await redis('SET', 'postern:tcp-app-test', value, 'EX', '30');
    expect((await redis('GET', 'postern:tcp-app-test')).stdout.trim()).toBe(value);
  });

  it('audits the connection’s start and end', async () => {
    await redis('PING');
    await vi.waitFor(async () => {
      const events = await app.audit.search({
        from: new Date(0),
        to: new Date(Date.now() + 60_000),
        limit: 100,
      });
      const types = events.events.map((event) => event.event);
      expect(types).toContain('app.session.start');
      expect(types).toContain('app.session.end');
    });
  });

  const upgrade = (name: string, headers: Record<string, string>) =>
    new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}${apiPaths.appTcp(name)}`, { headers });
      socket.once('open', () => {
        socket.close();
        resolve(101);
      });
      socket.once('unexpected-response', (_req, res) => resolve(res.statusCode!));
      socket.once('error', reject);
    });
  const signedFor = (name: string, user = 'alice', extraExtensions: Record<string, string> = {}) =>
    signRequest({
      method: 'GET',
      pathAndQuery: apiPaths.appTcp(name),
      certificateLine: app.services.ca.issueUserCertificate({
        user,
        roles: [],
        logins: [],
        publicKey: key.publicKey,
        ttlMs: 60_000,
        extraExtensions,
      }),
      privateKeyPem: key.privateKeyPem,
      now: Date.now(),
    });

  it('refuses before the upgrade: unsigned (401), an app the roles do not reach (404)', async () => {
    expect(await upgrade('cache', {})).toBe(401);
    expect(await upgrade('secret-cache', signedFor('secret-cache'))).toBe(404);
    expect(await upgrade('nope', signedFor('nope'))).toBe(404);
    expect(await upgrade('cache', signedFor('cache'))).toBe(101);
    // Signed for another path: the signature covers it.
    expect(await upgrade('cache', signedFor('secret-cache'))).toBe(401);
  });

  it('needs a per-session MFA certificate for the app when the roles ask, which a code gets', async () => {
    await createSessionMfaRole(app);
    const mika = await inviteUser(app, 'mika', { roles: ['prod-apps', 'checked'] });
    expect(await upgrade('cache', signedFor('cache', 'mika'))).toBe(403);
    // As postern proxy app does: a code, then a certificate that names app:cache.
    const mikaHome = (await signedInHome(app, port, 'mika', ['prod-apps', 'checked'])).home;
    const env = { POSTERN_HOME: mikaHome };
    const ask = async () => nextTotp(app, mika.totpSecret!);
    const tunnelTo = async (name: string) =>
      listenThroughProxy(
        env,
        {
          name,
          path: apiPaths.appTcp(name),
          certificate: tunnelCertificates(env, { kind: 'app', name }, ask),
        },
        0,
      );
    const checked = await tunnelTo('cache');
    try {
      const pong = await run('redis-cli', ['-h', '127.0.0.1', '-p', String(checked.port), 'PING']);
      expect(pong.stdout.trim()).toBe('PONG');
    } finally {
      await checked.close();
      await rm(mikaHome, { recursive: true, force: true });
    }
  });

  it('lists an open connection on Active Sessions until it closes', async () => {
    const viewer = await app.signIn(['auditor'], 'auditor');
    const tunnels = async () => {
      const res = await app.server.inject({
        method: 'GET',
        url: apiPaths.activeSessions('test-cluster'),
        headers: viewer,
      });
      expect(res.statusCode, res.body).toBe(200);
      const { sessions } = res.json() as { sessions: Record<string, unknown>[] };
      return sessions.filter((session) => session.kind === 'app' && session.owner === 'alice');
    };
    const socket = new WebSocket(`ws://127.0.0.1:${port}${apiPaths.appTcp('cache')}`, {
      headers: signedFor('cache'),
    });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    await vi.waitFor(async () =>
      expect(await tunnels()).toEqual([
        expect.objectContaining({
          server_hostname: 'cache',
          participantModes: [],
          parties: [expect.objectContaining({ user: 'alice' })],
        }),
      ]),
    );
    socket.close();
    await vi.waitFor(async () => expect(await tunnels()).toEqual([]));
  });

  it.each([
    ['whose certificate was proven with', POSTERN_MFA_DEVICE_EXTENSION],
    [
      "whose per-session certificate's check was answered with",
      POSTERN_SESSION_MFA_DEVICE_EXTENSION,
    ],
  ])('ends a live tunnel %s a locked MFA device', async (_, extension) => {
    const device = { [extension]: randomUUID() };
    const open = async (headers: Record<string, string>) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}${apiPaths.appTcp('cache')}`, {
        headers,
      });
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      return socket;
    };
    const byDevice = await open(signedFor('cache', 'alice', device));
    const other = await open(signedFor('cache'));
    const closed = new Promise<number>((resolve) => byDevice.once('close', resolve));
    const lock = await app.services.locks.create(
      { targets: { mfa_device: Object.values(device)[0]! }, message: 'key lost' },
      hostActor('test'),
    );
    try {
      expect(await closed).toBe(1000);
      expect(await upgrade('cache', signedFor('cache', 'alice', device))).toBe(403);
      expect(other.readyState).toBe(WebSocket.OPEN);
    } finally {
      other.close();
      await app.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });

  it('ends a live tunnel when the user is locked, and refuses new ones', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}${apiPaths.appTcp('cache')}`, {
      headers: signedFor('cache'),
    });
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await app.services.locks.create(
      { targets: { user: 'alice' }, message: 'incident' },
      hostActor('test'),
    );
    expect(await closed).toBe(1000);
    await vi.waitFor(async () => expect(await upgrade('cache', signedFor('cache'))).toBe(403));
  });
});
