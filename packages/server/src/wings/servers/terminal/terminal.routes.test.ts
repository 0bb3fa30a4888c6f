import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { arch, hostname, platform, tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  recordingRow,
  sessionEventsResponseSchema,
  terminalFlowControl,
  terminalMessageTypes as T,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalNode } from '../local-node.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { connectToNode } from '../../../ssh/client.js';
import { fingerprint, generateEd25519Key } from '../../../ssh/keys.js';
import { startSshd } from '../../../testing/sshd.testkit.js';
import { openTerminal, type TerminalClient } from '../../../testing/terminal-client.testkit.js';
import { requestAccessHint } from './node-access.js';

type Sshd = Awaited<ReturnType<typeof startSshd>>;

let app: TestApp;
let sshd: Sshd;
let baseUrl: string;
let nodeId: string;
let alice: Record<string, string>;
let bob: Record<string, string>;
let nobodyElse: Record<string, string>;
const admin = hostActor('test');

const role = (name: string, allow: object) =>
  app.services.roles.create(
    JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
    admin,
  );

beforeAll(async () => {
  app = await createTestApp();
  baseUrl = (await app.listenOnLoopback()).baseUrl;
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  const node = await app.services.inventory.addOpenSsh(
    { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'test' } },
    admin,
  );
  nodeId = node.metadata.name;
  const ownSessions = {
    resources: ['session_tracker'],
    verbs: ['list', 'read'],
    where: 'contains(session_tracker.participants, user.metadata.name)',
  };
  await role('root-access', { node_labels: { '*': '*' }, logins: ['root'], rules: [ownSessions] });
  await role('watcher', {
    node_labels: { env: 'test' },
    logins: ['root'],
    join_sessions: [{ name: 'watch', roles: ['root-access'], kinds: ['ssh'], modes: ['observer'] }],
    rules: [{ resources: ['session_tracker'], verbs: ['list'] }],
  });
  await role('outsider', { node_labels: { env: 'prod' }, logins: ['root'] });
  alice = await app.signIn(['root-access'], 'alice');
  bob = await app.signIn(['watcher'], 'bob');
  nobodyElse = await app.signIn(['outsider'], 'olga');
}, 60_000);

afterAll(async () => {
  await sshd?.stop();
  await app?.close();
});

const term = { w: 100, h: 30 };
const open = (headers: Record<string, string>, params: object, extra = {}) =>
  openTerminal({ baseUrl, headers, params: { term, ...params } as never, ...extra });

async function shell(headers = alice): Promise<TerminalClient> {
  const client = await open(headers, { server_id: nodeId, login: 'root' });
  expect(client.response.status).toBe('ok');
  await client.waitForOutput(/[#$] $/m);
  return client;
}

const sessionId = (client: TerminalClient) => {
  const frame = client.frames.find((f) => f.type === T.sessionData);
  return (JSON.parse(frame!.payload) as { session: { id: string } }).session.id;
};

const auditCodes = async () =>
  (await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 1000 }))
    .events;

describe('terminal over a real OpenSSH sshd', () => {
  it('runs a command, lists the session, and audits start and end', async () => {
    const client = await shell();
    client.type('echo "sum=$((40+2))"\r');
    await client.waitForOutput('sum=42');
    const sid = sessionId(client);
    const listed = await app.server.inject({
      url: `/v1/webapi/sites/-current-/sessions`,
      headers: alice,
    });
    const session = listed.json().sessions.find((s: { id: string }) => s.id === sid);
    expect(session).toMatchObject({
      kind: 'ssh',
      login: 'root',
      server_id: nodeId,
      server_hostname: 'sshd-host',
      owner: 'alice',
      participantModes: ['peer'],
    });
    expect(session.parties).toEqual([expect.objectContaining({ user: 'alice', mode: 'peer' })]);
    client.type('exit\r');
    const end = await client.closed;
    expect(end.code).toBe(1000);
    const events = await auditCodes();
    const start = events.find((e) => e.code === 'T2000I' && e.sid === sid);
    expect(start).toMatchObject({ user: 'alice', login: 'root', trace_id: 'ab'.repeat(16) });
    await client.waitFor(
      () => app.services.hub.get(sid) === undefined,
      'the session to leave the hub',
    );
    const ended = (await auditCodes()).find((e) => e.code === 'T2004I' && e.sid === sid);
    expect(ended).toMatchObject({ reason: 'exited with code 0', interactive: true });
  });

  it('records the session at the proxy as an asciicast v2 gzip', async () => {
    const client = await shell();
    const sid = sessionId(client);
    client.type('echo "rec=$((6*7))"\r');
    await client.waitForOutput('rec=42');
    client.type('exit\r');
    await client.closed;
    const dir = app.config.recordings.dir;
    const index = path.join(dir, `${sid}.index.json`);
    let sealed = false;
    await client.waitFor(() => {
      void access(index).then(
        () => (sealed = true),
        () => undefined,
      );
      return sealed;
    }, 'the recording to be sealed');
    const lines = gunzipSync(await readFile(path.join(dir, `${sid}.cast.gz`)))
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines[0]).toMatchObject({ version: 2, width: 100, height: 30, title: 'root@sshd-host' });
    const output = lines.slice(1) as [number, string, string][];
    expect(output.every(([t, kind]) => typeof t === 'number' && kind === 'o')).toBe(true);
    expect(output.map(([, , text]) => text).join('')).toContain('rec=42');
    await client.waitFor(
      () => app.services.hub.get(sid) === undefined,
      'the session to leave the hub',
    );
    const ended = (await auditCodes()).find((e) => e.code === 'T2004I' && e.sid === sid);
    expect(ended).toMatchObject({
      session_recording: 'on',
      interactive: true,
      participants: ['alice'],
      server_hostname: 'sshd-host',
    });

    // The recordings list reads the end event: its row names the login the session ran as.
    const auditor = await app.signIn(['auditor'], 'audrey');
    const range = `from=${new Date(0).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
    const listed = await app.server.inject({
      url: `/v1/webapi/sites/-current-/events/search/sessions?${range}&search=${sid}`,
      headers: auditor,
    });
    expect(listed.statusCode).toBe(200);
    const [row] = sessionEventsResponseSchema.parse(listed.json()).events.map(recordingRow);
    expect(row).toMatchObject({ sid, login: 'root', hostname: 'sshd-host', playable: true });
  });

  it('runs a command instead of a shell and audits its exit status', async () => {
    const failing = await open(alice, {
      server_id: nodeId,
      login: 'root',
      command: 'echo exec-$((1+1)); exit 3',
    });
    await failing.closed;
    expect(failing.output()).toContain('exec-2');
    const succeeding = await open(alice, { server_id: nodeId, login: 'root', command: 'true' });
    await succeeding.closed;
    let execs: Awaited<ReturnType<typeof auditCodes>> = [];
    const poll = setInterval(() => {
      void auditCodes().then((events) => (execs = events.filter((e) => e.event === 'exec')));
    }, 50);
    await failing
      .waitFor(() => execs.length >= 2, 'two exec events')
      .finally(() => clearInterval(poll));
    expect(execs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'T3002E',
          command: 'echo exec-$((1+1)); exit 3',
          exitCode: '3',
        }),
        expect.objectContaining({ code: 'T3002I', command: 'true', exitCode: '0' }),
      ]),
    );
  });

  it('pins the host key on first use', async () => {
    const node = app.services.inventory.get(nodeId)!;
    expect(node.spec.hostKeySource).toBe('pinned');
    expect(node.spec.hostPublicKey.split(' ')[1]).toBe(sshd.hostPublicKey.split(' ')[1]);
  });

  it('refuses a host whose key changed, with a clear message and an audit event', async () => {
    const moved = await app.services.inventory.addOpenSsh(
      { name: 'moved-host', addr: `localhost:${sshd.port}`, labels: { env: 'test' } },
      admin,
    );
    await app.services.inventory.pinHostKey(moved.metadata.name, generateEd25519Key().publicKey);
    const client = await open(alice, { server_id: 'moved-host', login: 'root' });
    await client.closed;
    const error = client.frames.find((f) => f.type === T.error)?.payload ?? '';
    expect(error).toMatch(
      /the host key of moved-host has changed: it presented SHA256:\S+, but SHA256:\S+ is on record; refusing to connect/,
    );
    const mismatch = (await auditCodes()).find(
      (e) => e.code === 'TPOS023E' && e.name === moved.metadata.name,
    );
    expect(mismatch?.presented_fingerprint).toBe(fingerprint(sshd.hostPublicKey));
  });

  it('refuses a bad bearer and a foreign origin', async () => {
    const bad = await open(alice, { server_id: nodeId, login: 'root' }, { token: 'nope' });
    expect(bad.response).toEqual({
      type: 'create_session_response',
      status: 'error',
      message: 'not authenticated',
    });
    expect((await bad.closed).code).toBe(1008);
    await expect(
      open(alice, { server_id: nodeId, login: 'root' }, { origin: 'https://evil.example' }),
    ).rejects.toThrow('HTTP 403');
  });

  it('refuses a login or a server the roles do not allow, and audits it', async () => {
    const wrongLogin = await open(alice, { server_id: nodeId, login: 'nobody' });
    await wrongLogin.closed;
    const error = wrongLogin.frames.find((f) => f.type === T.error);
    expect(error?.payload).toBe('access denied: login "nobody" is not allowed on sshd-host');
    const hidden = await open(nobodyElse, { server_id: nodeId, login: 'root' });
    await hidden.closed;
    expect(hidden.frames.find((f) => f.type === T.error)?.payload).toBe(
      `server "${nodeId}" is not found`,
    );
    const rejected = (await auditCodes()).filter((e) => e.code === 'T1006W');
    expect(rejected.map((e) => e.user)).toEqual(expect.arrayContaining(['alice', 'olga']));
  });

  it('tells a refused user whose roles may request access how to ask, whatever the server', async () => {
    await role('searcher', { request: { search_as_roles: ['root-access'] } });
    const pat = await app.signIn(['outsider', 'searcher'], 'pat');
    for (const serverId of [nodeId, 'no-such-server']) {
      const refused = await open(pat, { server_id: serverId, login: 'root' });
      await refused.closed;
      expect(refused.frames.find((f) => f.type === T.error)?.payload).toBe(
        `server "${serverId}" is not found; ${requestAccessHint}`,
      );
    }
  });

  it('lets an observer join: it sees the current screen first and cannot type', async () => {
    const owner = await shell();
    owner.type('echo before-join-$((6*7))\r');
    await owner.waitForOutput('before-join-42');
    const sid = sessionId(owner);
    const listed = await app.server.inject({
      url: `/v1/webapi/sites/-current-/sessions`,
      headers: bob,
    });
    expect(
      listed.json().sessions.find((s: { id: string }) => s.id === sid).participantModes,
    ).toEqual(['observer']);
    const peerAttempt = await open(bob, { sid, mode: 'peer' });
    await peerAttempt.closed;
    expect(peerAttempt.frames.find((f) => f.type === T.error)?.payload).toContain(
      'you may join this session as observer',
    );

    const observer = await open(bob, { sid, mode: 'observer' });
    await observer.waitForOutput('before-join-42');
    await owner.waitFor(
      () => owner.frames.some((f) => f.type === T.audit && f.payload.includes('session.join')),
      'the join notice',
    );
    observer.type('touch /tmp/observer-typed\r');
    owner.type('echo after-join-$((7*7))\r');
    await observer.waitForOutput('after-join-49');
    expect(owner.output()).not.toContain('observer-typed');
    observer.close();
    await owner.waitFor(
      () => owner.frames.some((f) => f.type === T.audit && f.payload.includes('session.leave')),
      'the leave notice',
    );
    owner.close();
    await owner.closed;
  });

  it('ends a live session within 5 s of a lock on its user', async () => {
    const client = await shell();
    const started = Date.now();
    await app.services.locks.create({ targets: { user: 'alice' }, message: 'incident 42' }, admin);
    const end = await client.closed;
    expect(Date.now() - started).toBeLessThan(5000);
    const reason = client.frames.find((f) => f.type === T.sessionEnd)?.payload ?? '';
    expect(JSON.parse(reason)).toEqual({ reason: 'locked: incident 42' });
    expect(end.code).toBe(1000);
    for (const lock of await app.services.locks.list(admin)) {
      await app.services.locks.remove(lock.metadata.name, admin);
    }
  });

  it('rejects sizes outside 1..4095', async () => {
    const refused = await open(alice, { server_id: nodeId, login: 'root', term: { w: 0, h: 10 } });
    expect(refused.response.status).toBe('error');
    const client = await shell();
    client.send(T.resize, JSON.stringify({ event: 'resize', width: 5000, height: 10 }));
    await client.waitFor(() => client.frames.some((f) => f.type === T.error), 'the refusal');
    client.send(T.resize, JSON.stringify({ event: 'resize', width: 50, height: 10 }));
    client.type('stty size\r');
    await client.waitForOutput('10 50');
    client.close();
  });

  it('pauses a flood until the client acknowledges, and Ctrl-C gets the prompt back', async () => {
    const client = await open(alice, { server_id: nodeId, login: 'root' }, { autoAck: false });
    await client.waitForOutput(/[#$] $/m);
    client.ackAll();
    client.type('yes\r');
    const { pauseAbove } = terminalFlowControl;
    await client.waitFor(() => client.output().length > pauseAbove, 'the flood');
    await new Promise((r) => setTimeout(r, 300));
    const plateau = client.output().length;
    await new Promise((r) => setTimeout(r, 300));
    // Paused: nothing arrives until the client acknowledges, and what was in flight is bounded.
    expect(client.output().length).toBe(plateau);
    expect(plateau).toBeLessThan(pauseAbove + 256 * 1024);
    client.type('\x03');
    const before = client.output().length;
    client.ackAll();
    await client.waitFor(() => {
      client.ackAll();
      return /[#$] $/.test(client.output().slice(before).slice(-200));
    }, 'the prompt after Ctrl-C');
    client.close();
  });
});

describe('active sessions route', () => {
  it('answers 401 without a session and 403 without activeSessions list', async () => {
    const anonymous = await app.server.inject({ url: '/v1/webapi/sites/-current-/sessions' });
    expect(anonymous.statusCode).toBe(401);
    const none = await app.signIn([], 'nina');
    const denied = await app.server.inject({
      url: '/v1/webapi/sites/-current-/sessions',
      headers: none,
    });
    expect(denied.statusCode).toBe(403);
  });
});

describe('terminal to the built-in node service', () => {
  const startBuiltIn = async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'postern-node-'));
    const local = await startLocalNode({
      config: {
        enabled: true,
        listenAddr: { host: '127.0.0.1', port: 0 },
        labels: {},
        commands: [],
      },
      dataDir,
      ca: app.services.ca,
      inventory: app.services.inventory,
      locks: app.services.lockWatcher,
      log: () => undefined,
    });
    return { dataDir, local };
  };

  it('reaches the host itself, and a lock on the node ends the session', async () => {
    const { dataDir, local } = await startBuiltIn();
    try {
      // It carries the host's name, OS and architecture as labels, shown on the Servers page.
      expect(app.services.inventory.get(local.id)?.metadata.labels).toEqual({
        hostname: hostname(),
        os: platform(),
        arch: arch(),
      });
      const client = await open(alice, { server_id: local.id, login: 'root' });
      expect(client.response.status).toBe('ok');
      client.type('echo "node=$((20+22))"; tty\r');
      await client.waitForOutput(/node=42\s+\/dev\/pts\/\d+/);
      await app.services.locks.create(
        { targets: { node: local.id }, message: 'maintenance' },
        admin,
      );
      await client.closed;
      const end = client.frames.find((f) => f.type === T.sessionEnd)?.payload ?? '{}';
      expect(JSON.parse(end)).toEqual({ reason: 'locked: maintenance' });
    } finally {
      for (const lock of await app.services.locks.list(admin)) {
        await app.services.locks.remove(lock.metadata.name, admin);
      }
      await local.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses a login straight to it (past the proxy) while its host name is locked', async () => {
    const { dataDir, local } = await startBuiltIn();
    const key = generateEd25519Key();
    const certificate = app.services.ca.issueUserCertificate({
      user: 'alice',
      roles: ['root-access'],
      logins: ['root'],
      publicKey: key.publicKey,
      ttlMs: 60_000,
    });
    const loginStraight = () =>
      connectToNode({
        host: '127.0.0.1',
        port: local.port,
        login: 'root',
        key: { privateKeyPem: key.privateKeyPem, certificate },
        verifyHostKey: () => true,
      });
    try {
      (await loginStraight()).end();
      await app.services.locks.create(
        { targets: { node: hostname() }, message: 'host by name' },
        admin,
      );
      await expect(loginStraight()).rejects.toThrow(/locked: host by name/);
    } finally {
      for (const lock of await app.services.locks.list(admin)) {
        await app.services.locks.remove(lock.metadata.name, admin);
      }
      await local.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
