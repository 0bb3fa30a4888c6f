import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiPaths, terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { TestSchemas, testPostgresUrl } from '../../../backend/testing/postgres.testkit.js';
import { clusterSecret } from '../../../cluster-secrets.js';
import { sessionCookieName } from '../../../http/request-identity.js';
import {
  peerJoinPath,
  peerProofHeaders,
  type PeerClaim,
} from '../../../modules/sessions/peer-proof.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { startSshNodeApp, type SshNodeApp } from '../../../testing/ssh-node-app.testkit.js';
import { startTcpRelay } from '../../../testing/tcp-relay.testkit.js';
import { openTerminal, type TerminalClient } from '../../../testing/terminal-client.testkit.js';
import { upgradeStatus } from '../../../testing/ws-upgrade.testkit.js';

// Two proxies on one PostgreSQL schema: proxy B holds alice's session on a real sshd, and bob
// joins it through proxy A's terminal WebSocket, which relays to B over the internal, proven
// proxy-to-proxy route. Every connection is to loopback.
const schemas = new TestSchemas();
let holder: SshNodeApp; // proxy B
let b: TestApp;
let a: TestApp; // proxy A
let aUrl: string;
const admin = hostActor('test');

beforeAll(async () => {
  await schemas.connect();
  const storage = { type: 'postgres' as const, url: testPostgresUrl, schema: schemas.newName() };
  holder = await startSshNodeApp({ storage, audit: storage });
  b = holder.app;
  // Short pings: the test of a holder gone silent waits two of them.
  a = await createTestApp({ storage, audit: storage, pingIntervalMs: 500 });
  aUrl = (await a.listenOnLoopback()).baseUrl;
  a.context.hub.advertise(aUrl);
  const role = (name: string, allow: object) =>
    b.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      admin,
    );
  const rootOnTest = { node_labels: { env: 'test' }, logins: ['root'] };
  await role('plain-x', rootOnTest);
  await role('supervised-x', {
    ...rootOnTest,
    require_session_join: [
      {
        name: 'oversight',
        filter: 'contains(user.roles, "overseer-x")',
        kinds: ['ssh'],
        count: 1,
        modes: ['moderator'],
        on_leave: 'terminate',
      },
    ],
  });
  await role('overseer-x', {
    join_sessions: [
      {
        name: 'watch',
        roles: ['plain-x', 'supervised-x'],
        kinds: ['ssh'],
        modes: ['moderator', 'observer'],
      },
    ],
  });
  await b.services.users.create({ name: 'alice', roles: ['plain-x'] }, 'test');
  await b.services.users.create({ name: 'carol', roles: ['supervised-x'] }, 'test');
  await b.services.users.create({ name: 'bob', roles: ['overseer-x'] }, 'test');
  await b.services.users.create({ name: 'dan', roles: ['overseer-x'] }, 'test');
  // Proxy A sees the roles and users through the backend's watch.
  await until(
    () => a.context.access.roles.get('overseer-x') !== undefined && hasUser(a, 'dan'),
    'proxy A to see the roles',
  );
}, 60_000);

afterAll(async () => {
  await a?.close();
  await holder?.close();
  await schemas.dropAll();
});

const hasUser = (app: TestApp, name: string) => app.context.access.users.get(name) !== undefined;

async function until(done: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ownerOnB(user: string, role: string) {
  const owner = await openTerminal({
    baseUrl: holder.baseUrl,
    headers: await b.signIn([role], user),
    params: { server_id: holder.nodeId, login: 'root', term: { w: 80, h: 24 } },
  });
  expect(owner.response.status).toBe('ok');
  await owner.waitFor(() => owner.frames.some((f) => f.type === T.sessionData), 'session data');
  const frame = owner.frames.find((f) => f.type === T.sessionData)!;
  const sid = (JSON.parse(frame.payload) as { session: { id: string } }).session.id;
  // Proxy A learns where the session is through the watched trackers.
  await until(() => a.context.hub.tracker(sid)?.proxyAddr === holder.baseUrl, 'the tracker on A');
  return { owner, sid };
}

const joinThroughA = async (sid: string, mode: 'observer' | 'moderator', user = 'bob') =>
  openTerminal({
    baseUrl: aUrl,
    headers: await a.signIn(['overseer-x'], user),
    params: { sid, mode, term: { w: 80, h: 24 } } as never,
  });

const endReason = (client: TerminalClient) => {
  const frame = client.frames.find((f) => f.type === T.sessionEnd);
  return frame ? (JSON.parse(frame.payload) as { reason: string }).reason : '';
};

describe('joining a session held by another proxy', () => {
  it('lets an observer on proxy A watch a session on proxy B, without typing into it', async () => {
    const { owner, sid } = await ownerOnB('alice', 'plain-x');
    await owner.waitForOutput(/[#$] $/m);
    owner.type('echo before-$((6*7))\r');
    await owner.waitForOutput('before-42');

    const observer = await joinThroughA(sid, 'observer');
    expect(observer.response.status).toBe('ok');
    // The earlier screen first, then the live stream.
    await observer.waitForOutput('before-42');
    await owner.waitFor(
      () => owner.frames.some((f) => f.type === T.audit && f.payload.includes('session.join')),
      'the join event',
    );
    owner.type('echo after-$((7*8))\r');
    await observer.waitForOutput('after-56');

    observer.type('echo bob-$((9*9))\r');
    observer.send(T.resize, JSON.stringify({ width: 100, height: 30 }));
    await pause(500);
    expect(owner.output()).not.toContain('bob-81');
    expect(observer.output()).not.toContain('bob-81');
    expect(owner.frames.some((f) => f.type === T.audit && f.payload.includes('100:30'))).toBe(
      false,
    );

    observer.close();
    await owner.waitFor(
      () => owner.frames.some((f) => f.type === T.audit && f.payload.includes('session.leave')),
      'the leave event',
    );
    owner.type('exit\r');
    await owner.closed;
  });

  it('starts a moderated session when the moderator joins through A, and ends it on their t', async () => {
    const { owner, sid } = await ownerOnB('carol', 'supervised-x');
    await owner.waitForOutput('this session needs 1 moderator');
    const moderator = await joinThroughA(sid, 'moderator');
    await owner.waitForOutput('bob (moderator) joined: the session starts.');
    await moderator.waitForOutput('the session starts.');
    await owner.waitForOutput(/[#$] $/m);
    owner.type('echo started-$((5*5))\r');
    await moderator.waitForOutput('started-25');

    moderator.type('t');
    await owner.closed;
    expect(endReason(owner)).toBe('terminated by moderator bob');
    await moderator.closed;
    expect(endReason(moderator)).toBe('terminated by moderator bob');
    await until(() => a.context.hub.tracker(sid) === undefined, 'the tracker to go');
  });

  it('a moderator through A approves a file transfer, and the owner makes it through A', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'postern-cross-moderated-'));
    const location = path.join(dir, 'report.txt');
    await writeFile(location, 'approved across proxies\n');
    try {
      const { owner, sid } = await ownerOnB('carol', 'supervised-x');
      const moderator = await joinThroughA(sid, 'moderator');
      await owner.waitForOutput(/[#$] $/m);
      owner.send(
        T.fileTransferRequest,
        JSON.stringify({ event: 'file_transfer_request', download: true, location }),
      );
      const requested = () =>
        moderator.frames
          .filter((f) => f.type === T.audit)
          .map((f) => JSON.parse(f.payload) as { event: string; requestId: string })
          .find((e) => e.event === 'file_transfer_request');
      await moderator.waitFor(() => requested() !== undefined, 'the request through A');
      const { requestId } = requested()!;
      moderator.send(
        T.fileTransferDecision,
        JSON.stringify({ event: 'file_transfer_decision', requestId, approved: true }),
      );
      await owner.waitFor(
        () =>
          owner.frames.some(
            (f) => f.type === T.audit && (JSON.parse(f.payload) as { approved?: boolean }).approved,
          ),
        'the approval on B',
      );
      // The console's HTTP call may reach the other proxy: the approval is in the shared backend.
      const query = new URLSearchParams({
        location,
        moderatedSessionId: sid,
        fileTransferRequestId: requestId,
      });
      const made = await a.server.inject({
        url: `${apiPaths.fileTransfer('-current-', holder.nodeId, 'root')}?${query}`,
        headers: await b.signIn(['supervised-x'], 'carol'),
      });
      expect(made.statusCode, made.body).toBe(200);
      expect(made.body).toBe('approved across proxies\n');
      moderator.close();
      owner.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a forged, replayed, expired or misdirected proxy-to-proxy join', async () => {
    const { owner, sid } = await ownerOnB('alice', 'plain-x');
    const secret = await clusterSecret(b.backend, 'proxy-peer');
    const claim = (over: Partial<PeerClaim> = {}): PeerClaim => ({
      to: b.context.hub.proxyId,
      sid,
      user: 'bob',
      roles: ['overseer-x'],
      mode: 'observer',
      ts: Date.now(),
      nonce: randomBytes(16).toString('base64url'),
      ...over,
    });

    expect(await connect(peerProofHeaders(randomBytes(32), claim()), sid)).toBe(403);
    expect(await connect(peerProofHeaders(secret, claim({ ts: Date.now() - 60_000 })), sid)).toBe(
      403,
    );
    expect(await connect(peerProofHeaders(secret, claim({ to: a.context.hub.proxyId })), sid)).toBe(
      403,
    );
    expect(await connect(peerProofHeaders(secret, claim({ mode: 'peer' })), sid)).toBe(403);
    expect(await connect({}, sid)).toBe(403);

    const once = peerProofHeaders(secret, claim());
    expect(await connect(once, sid)).toBe('open');
    expect(await connect(once, sid)).toBe(403);

    owner.type('exit\r');
    await owner.closed;
  });

  it('ends a joiner’s view within two pings when the holder goes silent without closing', async () => {
    // B is reached through a relay that the test freezes: no byte passes, nothing closes.
    const holderPort = Number(new URL(holder.baseUrl).port);
    const relay = await startTcpRelay(holderPort);
    const relayUrl = `http://127.0.0.1:${relay.port}`;
    b.context.hub.advertise(relayUrl);
    try {
      const owner = await openTerminal({
        baseUrl: holder.baseUrl,
        headers: await b.signIn(['plain-x'], 'alice'),
        params: { server_id: holder.nodeId, login: 'root', term: { w: 80, h: 24 } },
      });
      await owner.waitFor(() => owner.frames.some((f) => f.type === T.sessionData), 'data');
      const frame = owner.frames.find((f) => f.type === T.sessionData)!;
      const sid = (JSON.parse(frame.payload) as { session: { id: string } }).session.id;
      await until(() => a.context.hub.tracker(sid)?.proxyAddr === relayUrl, 'the relay’s address');
      await owner.waitForOutput(/[#$] $/m);
      const observer = await joinThroughA(sid, 'observer');
      owner.type('echo seen-$((4*4))\r');
      await observer.waitForOutput('seen-16');

      relay.freeze();
      const frozenAt = Date.now();
      await observer.closed;
      expect(endReason(observer)).toBe('the proxy holding this session went away');
      expect(Date.now() - frozenAt).toBeLessThan(3000);
      owner.type('exit\r');
      await owner.closed;
    } finally {
      b.context.hub.advertise(holder.baseUrl);
      await relay.close();
    }
  });

  it("ends a joiner through A whom a lock covers, and the owner's session goes on", async () => {
    const { owner, sid } = await ownerOnB('alice', 'plain-x');
    await owner.waitForOutput(/[#$] $/m);
    const observer = await joinThroughA(sid, 'observer', 'dan');
    await owner.waitFor(
      () => owner.frames.some((f) => f.type === T.audit && f.payload.includes('session.join')),
      'the join event',
    );
    const locked = await a.server.inject({
      method: 'PUT',
      url: '/v1/webapi/sites/test-cluster/locks',
      headers: await a.signIn(['editor'], 'root'),
      payload: { targets: { user: 'dan' }, message: 'incident 7' },
    });
    expect(locked.statusCode, locked.body).toBe(200);
    await observer.closed;
    expect(endReason(observer)).toBe('locked: incident 7');
    owner.type('echo still-$((3*3))\r');
    await owner.waitForOutput('still-9');
    owner.type('exit\r');
    await owner.closed;
  });

  it('ends a joiner through A signed in with a device an mfa_device lock names', async () => {
    const { owner, sid } = await ownerOnB('alice', 'plain-x');
    await owner.waitForOutput(/[#$] $/m);
    // Proxy A signed bob in with this device: its proof to B carries it, and B judges by it.
    const device = randomUUID();
    const session = await a.services.sessions.create('bob', ['overseer-x'], undefined, {
      mfaDevice: device,
    });
    const observer = await openTerminal({
      baseUrl: aUrl,
      headers: {
        cookie: `${sessionCookieName}=${session.id}`,
        authorization: `Bearer ${session.bearerToken}`,
      },
      params: { sid, mode: 'observer', term: { w: 80, h: 24 } } as never,
    });
    await owner.waitFor(
      () => owner.frames.some((f) => f.type === T.audit && f.payload.includes('session.join')),
      'the join event',
    );
    await b.services.locks.create(
      { targets: { mfa_device: device }, message: 'key reported lost' },
      hostActor('test'),
    );
    await observer.closed;
    expect(endReason(observer)).toBe('locked: key reported lost');
    owner.type('echo still-$((4*4))\r');
    await owner.waitForOutput('still-16');
    owner.type('exit\r');
    await owner.closed;
  });
});

/** Opens B's internal join route with these headers: 'open', or the refusal's HTTP status. */
async function connect(headers: Record<string, string>, sid: string): Promise<'open' | number> {
  const url = new URL(peerJoinPath(sid), holder.baseUrl.replace(/^http/, 'ws'));
  return (await upgradeStatus(url.toString(), headers)).status;
}
