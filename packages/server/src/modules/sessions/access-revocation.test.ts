import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiPaths, terminalMessageTypes as T } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateEd25519Key } from '../../ssh/keys.js';
import { signRequest } from '../../ssh/signed-request.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { b64, inviteUser, nextTotp } from '../../testing/identity.testkit.js';
import { openSshClient } from '../../testing/openssh-client.testkit.js';
import { startTestSshProxy } from '../../testing/ssh-proxy.testkit.js';
import { freePort, startSshd } from '../../testing/sshd.testkit.js';
import { openTerminal, type TerminalClient } from '../../testing/terminal-client.testkit.js';
import { hostActor } from '../../access-control/access/actor.js';

// Access taken away while it is in use ends that use, on a real OpenSSH sshd: the browser
// terminal and `ssh -J` through the proxy, after a role edit, a role removed from the user, a
// trait change, and a change of credentials.
let app: TestApp;
let sshd: Awaited<ReturnType<typeof startSshd>>;
let proxy: Awaited<ReturnType<typeof startTestSshProxy>>;
let baseUrl: string;
let nodeId: string;
const admin = hostActor('test');
/** Ends within this long of the change: the hub acts on the watch event, and checks each second. */
const endsWithinMs = 5_000;

const putRole = (name: string, allow: object) =>
  app.services.roles.put(
    JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
    admin,
  );
const rootOnTest = { node_labels: { env: 'test' }, logins: ['root'] };

beforeAll(async () => {
  app = await createTestApp();
  baseUrl = (await app.listenOnLoopback()).baseUrl;
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  const node = await app.services.inventory.addOpenSsh(
    { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'test' } },
    admin,
  );
  nodeId = node.metadata.name;
  await putRole('root-access', rootOnTest);
  await putRole('elsewhere', { node_labels: { env: 'prod' }, logins: ['root'] });
  await putRole('by-trait', { node_labels: { env: 'test' }, logins: ['{{internal.logins}}'] });
  proxy = await startTestSshProxy(app);
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await sshd?.stop();
  await app?.close();
});

const open = (headers: Record<string, string>) =>
  openTerminal({
    baseUrl,
    headers,
    params: { term: { w: 80, h: 24 }, server_id: nodeId, login: 'root' } as never,
  });

async function shell(headers: Record<string, string>): Promise<TerminalClient> {
  const client = await open(headers);
  expect(client.response.status).toBe('ok');
  await client.waitForOutput(/[#$] $/m);
  return client;
}

const sessionIdOf = (client: TerminalClient) => {
  const frame = client.frames.find((f) => f.type === T.sessionData);
  return (JSON.parse(frame!.payload) as { session: { id: string } }).session.id;
};

/** Resolves with the close once it came within `ms`, or fails saying it did not. */
async function closedWithin(client: TerminalClient, ms = endsWithinMs) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the terminal was still open after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([client.closed, late]);
  } finally {
    clearTimeout(timer);
  }
}

const errors = (client: TerminalClient) =>
  client.frames.filter((f) => f.type === T.error).map((f) => f.payload);

async function endEvent(sid: string) {
  const to = new Date(Date.now() + 3_600_000);
  for (let attempt = 0; attempt < 100; attempt++) {
    const { events } = await app.audit.search({ from: new Date(0), to, limit: 1000 });
    const found = events.find((e) => e.code === 'T2004I' && e.sid === sid);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no session end event for ${sid}`);
}

/** Opens a shell, applies `change`, and expects the session to end saying why. */
async function expectEndsOn(headers: Record<string, string>, change: () => Promise<unknown>) {
  const client = await shell(headers);
  const sid = sessionIdOf(client);
  await change();
  const closed = await closedWithin(client);
  expect(closed.code).toBe(1000);
  expect(errors(client)).toContain('access to root@sshd-host was removed');
  expect((await endEvent(sid)).reason).toBe('access to root@sshd-host was removed');
  // A new attempt is refused at once.
  const again = await open(headers);
  await closedWithin(again);
  expect(errors(again).join('\n')).toMatch(/not allowed|not found/);
}

describe('taking access away ends the sessions that relied on it', () => {
  it('ends a terminal when its role no longer grants the login', async () => {
    await app.services.users.create({ name: 'alice', roles: ['root-access'] }, 'test');
    const alice = await app.signIn(['root-access'], 'alice');
    await expectEndsOn(alice, () =>
      putRole('root-access', { node_labels: { env: 'test' }, logins: ['nobody'] }),
    );
    await putRole('root-access', rootOnTest);
  });

  it("ends a terminal when the role is taken from the user, or the node's labels stop matching", async () => {
    await app.services.users.create({ name: 'bob', roles: ['root-access'] }, 'test');
    const bob = await app.signIn(['root-access'], 'bob');
    await expectEndsOn(bob, () =>
      app.services.users.update({ name: 'bob', roles: ['elsewhere'] }, 'test'),
    );
  });

  it('ends a terminal when a trait its role reads ({{internal.logins}}) changes', async () => {
    await app.services.users.create(
      { name: 'tara', roles: ['by-trait'], traits: { logins: ['root'] } },
      'test',
    );
    const tara = await app.signIn(['by-trait'], 'tara');
    await expectEndsOn(tara, () =>
      app.services.users.update({ name: 'tara', traits: { logins: ['nobody'] } }, 'test'),
    );
  });

  it('ends a terminal that only an assumed access request allowed when its access ends', async () => {
    await putRole('may-request-root', { request: { roles: ['root-access'] } });
    await putRole('reviews-root', { review_requests: { roles: ['root-access'] } });
    await app.services.users.create({ name: 'quinn', roles: ['may-request-root'] }, 'test');
    const quinn = await app.signIn(['may-request-root'], 'quinn');
    const requests = app.services.accessRequests;
    const quinnActor = { name: 'quinn', roleSet: app.services.access.resolve('quinn', []).roleSet };
    const reviewer = {
      name: 'rex',
      roleSet: app.services.access.resolve('rex', ['reviews-root']).roleSet,
    };
    const request = await requests.create(
      {
        roles: ['root-access'],
        resources: [],
        reason: 'fix',
        suggestedReviewers: [],
        maxDuration: '4s',
        dryRun: false,
      },
      quinnActor,
    );
    await requests.review(request.id, { state: 'APPROVED', reason: '' }, reviewer);
    const renewed = await app.server.inject({
      method: 'POST',
      url: apiPaths.renewSession,
      headers: quinn,
      payload: { requestId: request.id },
    });
    expect(renewed.statusCode).toBe(200);
    const assumed = {
      cookie: String(renewed.headers['set-cookie']).split(';')[0]!,
      authorization: `Bearer ${renewed.json().token}`,
    };
    const client = await shell(assumed);
    const sid = sessionIdOf(client);
    // Nothing changes in storage: the end of the request's access alone ends the session.
    const closed = await closedWithin(client, 4_000 + endsWithinMs);
    expect(closed.code).toBe(1000);
    expect(errors(client)).toContain('access to root@sshd-host was removed');
    expect((await endEvent(sid)).reason).toBe('access to root@sshd-host was removed');
  });

  it("removes a joined observer whose role no longer lets them join; the owner's session goes on", async () => {
    await putRole('watcher', {
      join_sessions: [{ name: 'w', roles: ['root-access'], kinds: ['ssh'], modes: ['observer'] }],
    });
    await app.services.users.create({ name: 'owen', roles: ['root-access'] }, 'test');
    await app.services.users.create({ name: 'wendy', roles: ['watcher'] }, 'test');
    const owner = await shell(await app.signIn(['root-access'], 'owen'));
    const sid = sessionIdOf(owner);
    const watcher = await openTerminal({
      baseUrl,
      headers: await app.signIn(['watcher'], 'wendy'),
      params: { term: { w: 80, h: 24 }, sid, mode: 'observer' } as never,
    });
    expect(watcher.response.status).toBe('ok');
    await watcher.waitFor(() => watcher.frames.some((f) => f.type === T.raw), 'the screen');

    await putRole('watcher', {});
    await closedWithin(watcher);
    expect(errors(watcher)).toContain('your right to join this session was removed');
    owner.type('echo "owner=$((5+5))"\r');
    await owner.waitForOutput('owner=10');
    owner.close();
  });

  it('ends the terminals of a deleted user', async () => {
    await app.services.users.create({ name: 'dora', roles: ['root-access'] }, 'test');
    const client = await shell(await app.signIn(['root-access'], 'dora'));
    await app.services.users.remove('dora', 'admin');
    await closedWithin(client);
    expect(errors(client)).toContain('the user was deleted');
  });

  it('cuts off a file upload in progress, saying why, and leaves nothing on the node', async () => {
    await app.services.users.create({ name: 'fay', roles: ['root-access'] }, 'test');
    const fay = await app.signIn(['root-access'], 'fay');
    const target = await mkdtemp(path.join(tmpdir(), 'postern-revoked-upload-'));
    try {
      const boundary = `----postern${randomBytes(8).toString('hex')}`;
      const query = new URLSearchParams({ location: path.join(target, 'big.bin') });
      const request = httpRequest(
        `${baseUrl}${apiPaths.fileTransfer('-current-', nodeId, 'root')}?${query}`,
        {
          method: 'POST',
          headers: { ...fay, 'content-type': `multipart/form-data; boundary=${boundary}` },
        },
      );
      const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
        request.on('response', (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        request.on('error', reject);
      });
      request.write(
        `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.bin"\r\n` +
          'content-type: application/octet-stream\r\n\r\n',
      );
      request.write(randomBytes(512 * 1024));
      // The upload is under way once its temporary file exists on the node.
      for (let i = 0; i < 200 && (await readdir(target)).length === 0; i++) {
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(await readdir(target)).toHaveLength(1);

      await app.services.users.update({ name: 'fay', roles: ['elsewhere'] }, 'test');
      const answer = await response;
      request.destroy();
      expect(answer.status).toBe(403);
      expect(answer.body).toContain('access to root@sshd-host was removed');
      expect(await readdir(target)).toEqual([]);
    } finally {
      await rm(target, { recursive: true, force: true });
    }
  });

  it('ends `ssh -J` connections through the proxy (terminal, command, sftp, forward), saying why', async () => {
    await app.services.users.create({ name: 'sam', roles: ['root-access'] }, 'test');
    const sam = await openSshClient({
      ca: app.services.ca,
      user: 'sam',
      roles: ['root-access'],
      logins: ['root'],
      proxyPort: proxy.port,
    });
    const forwardPort = await freePort();
    try {
      const clients = {
        pty: sam.spawn('ssh', ['-tt', 'root@sshd-host']),
        command: sam.spawn('ssh', ['root@sshd-host', 'echo started; sleep 60']),
        sftp: sam.spawn('sftp', ['-b', '-', 'root@sshd-host']),
        forward: sam.spawn('ssh', [
          '-N',
          '-L',
          `${forwardPort}:127.0.0.1:${sshd.port}`,
          'root@sshd-host',
        ]),
      };
      const seen = { pty: '', command: '', sftp: '', forward: '' };
      const ends = Object.entries(clients).map(([name, child]) => {
        const key = name as keyof typeof seen;
        child.stdout.on('data', (d: Buffer) => (seen[key] += d.toString()));
        child.stderr.on('data', (d: Buffer) => (seen[key] += d.toString()));
        // 'close': what each printed last is read before its end is checked.
        return new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      });
      clients.sftp.stdin.write('pwd\n');
      const until = async (what: () => boolean | Promise<boolean>) => {
        for (let i = 0; i < 300 && !(await what()); i++)
          await new Promise((r) => setTimeout(r, 50));
        expect(await what()).toBe(true);
      };
      await until(() => /[#$] $/m.test(seen.pty) && seen.command.includes('started'));
      await until(() => seen.sftp.includes('Remote working directory'));
      await until(() => portOpen(forwardPort));

      const changed = Date.now();
      await app.services.users.update({ name: 'sam', roles: ['elsewhere'] }, 'test');
      // sftp in batch mode notices the disconnect at its next command, or at the end of input.
      await until(() => seen.sftp.includes('access to root@sshd-host was removed'));
      clients.sftp.stdin.end();
      const [pty, command, , forward] = await Promise.all(ends);
      expect(Date.now() - changed).toBeLessThan(endsWithinMs);
      // sftp's batch had succeeded; the others end with an error status.
      expect([pty, command, forward].every((code) => code !== 0)).toBe(true);
      for (const name of ['pty', 'command', 'sftp', 'forward'] as const) {
        expect(seen[name], name).toContain('access to root@sshd-host was removed');
      }

      const again = await sam.run('ssh', ['root@sshd-host', 'true']);
      expect(again.code).not.toBe(0);
    } finally {
      await sam.remove();
    }
  });
});

/** Whether something listens on the loopback port. */
function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('changing credentials ends what was issued before', () => {
  it("ends the user's other web sessions, certificates and terminals; the changing session stays", async () => {
    const carol = await inviteUser(app, 'carol', { roles: ['root-access'] });
    const other = await app.signIn(['root-access'], 'carol');
    const devices = (headers: Record<string, string>) =>
      app.server.inject({ url: '/v1/webapi/mfa/devices', headers });
    expect((await devices(other)).statusCode).toBe(200);
    const key = generateEd25519Key();
    const certificate = (now: number) =>
      app.services.ca.issueUserCertificate({
        user: 'carol',
        roles: ['root-access'],
        logins: ['root'],
        publicKey: key.publicKey,
        ttlMs: 3_600_000,
        now: new Date(now),
      });
    const listNodes = (cert: string) =>
      app.server.inject({
        url: '/v1/webapi/ssh/nodes?limit=10',
        headers: signRequest({
          method: 'GET',
          pathAndQuery: '/v1/webapi/ssh/nodes?limit=10',
          certificateLine: cert,
          privateKeyPem: key.privateKeyPem,
          now: app.clock.now(),
        }),
      });
    const before = certificate(app.clock.now());
    expect((await listNodes(before)).statusCode).toBe(200);
    const theirs = await shell(other);
    const mine = await shell(carol.headers);

    const changed = await app.server.inject({
      method: 'PUT',
      url: '/v1/webapi/users/password',
      headers: carol.headers,
      payload: {
        old_password: b64(carol.password!),
        new_password: b64('a brand new long password 9'),
        second_factor_token: nextTotp(app, carol.totpSecret!),
      },
    });
    expect(changed.statusCode, changed.body).toBe(200);

    expect((await devices(other)).statusCode).toBe(401);
    expect((await devices(carol.headers)).statusCode).toBe(200);
    const revoked = await listNodes(before);
    expect(revoked.statusCode).toBe(401);
    expect(revoked.json().error.message).toMatch(/credentials changed/);
    // A certificate issued after the change works (certificates count whole seconds).
    app.clock.advance(2_000);
    expect((await listNodes(certificate(app.clock.now()))).statusCode).toBe(200);

    await closedWithin(theirs);
    expect(errors(theirs).join('\n')).toMatch(/credentials changed/);
    mine.type('echo "still=$((20+1))"\r');
    await mine.waitForOutput('still=21');
    mine.close();
  });

  it("refuses a deleted user's certificate at the SSH proxy", async () => {
    await app.services.users.create({ name: 'del', roles: ['root-access'] }, 'test');
    const del = await openSshClient({
      ca: app.services.ca,
      user: 'del',
      roles: ['root-access'],
      logins: ['root'],
      proxyPort: proxy.port,
    });
    try {
      expect((await del.run('ssh', ['root@sshd-host', 'echo ok'])).stdout).toContain('ok');
      await app.services.users.remove('del', 'admin');
      const refused = await del.run('ssh', ['root@sshd-host', 'echo ok']);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout).not.toContain('ok');
    } finally {
      await del.remove();
    }
  });

  it('refuses a certificate issued before an admin reset at the SSH proxy', async () => {
    await app.services.users.create({ name: 'rita', roles: ['root-access'] }, 'test');
    const rita = await openSshClient({
      ca: app.services.ca,
      user: 'rita',
      roles: ['root-access'],
      logins: ['root'],
      proxyPort: proxy.port,
    });
    try {
      expect((await rita.run('ssh', ['root@sshd-host', 'echo ok'])).stdout).toContain('ok');
      app.clock.advance(2_000);
      await app.services.tokens.create('rita', 'password', undefined, 'admin');
      const refused = await rita.run('ssh', ['root@sshd-host', 'echo ok']);
      expect(refused.code).not.toBe(0);
      expect(refused.stdout).not.toContain('ok');
    } finally {
      await rita.remove();
    }
  });
});
