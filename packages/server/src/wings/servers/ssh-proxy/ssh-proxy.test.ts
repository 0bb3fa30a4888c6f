import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalNode } from '../local-node.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { openSshClient, type OpenSshClientSetup } from '../../../testing/openssh-client.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';
import { startTestSshProxy } from '../../../testing/ssh-proxy.testkit.js';
import { startSshd } from '../../../testing/sshd.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';

// The stock OpenSSH client (ssh, scp, sftp) through the SSH proxy to a real sshd and to the
// built-in node service: the same rules, sessions, recordings and audit as the browser.
let app: TestApp;
let sshd: Awaited<ReturnType<typeof startSshd>>;
let local: Awaited<ReturnType<typeof startLocalNode>>;
let proxy: Awaited<ReturnType<typeof startTestSshProxy>>;
let alice: OpenSshClientSetup;
let dir: string;
const admin = hostActor('test');

beforeAll(async () => {
  app = await createTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'postern-ssh-proxy-'));
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  await app.services.inventory.addOpenSsh(
    { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'test' } },
    admin,
  );
  local = await startLocalNode({
    config: {
      enabled: true,
      listenAddr: { host: '127.0.0.1', port: 0 },
      labels: { env: 'test' },
      commands: [],
    },
    dataDir: dir,
    ca: app.services.ca,
    inventory: app.services.inventory,
    locks: app.services.lockWatcher,
    log: () => undefined,
  });
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'root-access' },
      spec: { allow: { node_labels: { env: 'test' }, logins: ['root'] } },
    }),
    admin,
  );
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'agent-forwarding' },
      spec: { options: { forward_agent: true }, allow: {} },
    }),
    admin,
  );
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'no-forwarding' },
      spec: { options: { port_forwarding: false }, allow: {} },
    }),
    admin,
  );
  // The proxy takes certificates of users who have a record (a deleted user's are refused).
  await app.services.users.create({ name: 'alice', roles: ['root-access'] }, 'test');
  await app.services.users.create(
    { name: 'carol', roles: ['root-access', 'agent-forwarding'] },
    'test',
  );
  await app.services.users.create(
    { name: 'dave', roles: ['root-access', 'no-forwarding'] },
    'test',
  );
  proxy = await startTestSshProxy(app);
  alice = await openSshClient({
    ca: app.services.ca,
    user: 'alice',
    roles: ['root-access'],
    logins: ['root'],
    proxyPort: proxy.port,
  });
}, 60_000);

afterAll(async () => {
  await alice?.remove();
  await proxy?.stop();
  await local?.stop();
  await sshd?.stop();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const events = async () =>
  (await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 5000 }))
    .events;

/** Both kinds of node: OpenSSH by its name, the built-in node by its id. */
const nodes = (): [string, () => string][] => [
  ['an OpenSSH host', () => 'sshd-host'],
  ['the built-in node', () => local.id],
];

describe('ssh through the proxy', () => {
  it.each(nodes())(
    'runs a command on %s with its exit status, stderr and stdin',
    async (_, node) => {
      const result = await alice.run(
        'ssh',
        [`root@${node()}`, 'read line; echo "got $line"; echo oops >&2; exit 3'],
        'hello\n',
      );
      expect(result).toMatchObject({ code: 3, stdout: 'got hello\n', stderr: 'oops\n' });
      const exec = (await events()).find(
        (e) => e.code === 'T3002E' && e.command?.toString().includes('got $line'),
      );
      expect(exec).toMatchObject({ user: 'alice', login: 'root', exitCode: '3' });
      // Recorded too: stdout and stderr as the cast's output, listed as non-interactive.
      const sid = String(exec!.sid);
      await untilAsync(
        async () => (await events()).some((e) => e.code === 'T2004I' && e.sid === sid),
        'the end event',
      );
      const end = (await events()).find((e) => e.code === 'T2004I' && e.sid === sid);
      expect(end).toMatchObject({ interactive: false, session_recording: 'on' });
      const cast = gunzipSync(
        Buffer.concat(await (await app.services.recordings.openCast(sid))!.toArray()),
      );
      // Both streams are in the cast (in one event when they came in the same millisecond).
      expect(cast.toString()).toMatch(/got hello\\n[\s\S]*oops\\n|oops\\n[\s\S]*got hello\\n/);
    },
  );

  it('finds a server by host:port too, and by its hostname', async () => {
    const byAddr = await alice.run('ssh', ['-p', String(sshd.port), 'root@127.0.0.1', 'echo addr']);
    expect(byAddr).toMatchObject({ code: 0, stdout: 'addr\n' });
    const byHostname = await alice.run('ssh', [`root@${hostname()}`, 'echo hostname']);
    expect(byHostname).toMatchObject({ code: 0, stdout: 'hostname\n' });
  });

  it('passes binary output through untouched', async () => {
    const result = await alice.run('ssh', [
      'root@sshd-host',
      'head -c 300000 /dev/urandom | sha256sum; true',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^[0-9a-f]{64} {2}-\n$/);
  });

  it('runs an interactive session in the hub: listed, recorded and audited', async () => {
    const child = alice.spawn('ssh', ['-tt', `root@${local.id}`]);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until(() => /[#$] $/m.test(output), 'a prompt');
    const [tracker] = app.services.hub.list().filter((t) => t.owner === 'alice');
    expect(tracker).toMatchObject({ login: 'root', serverId: local.id });
    child.stdin.write('echo "sum=$((40+2))"\r');
    await until(() => output.includes('sum=42'), 'the command output');
    child.stdin.write('exit 5\r');
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(5);
    const sid = tracker!.id;
    let index: Awaited<ReturnType<typeof app.services.recordings.readIndex>>;
    await untilAsync(
      async () => (index = await app.services.recordings.readIndex(sid)) !== undefined,
      'the recording to be sealed',
    );
    expect(index).toMatchObject({ sealed: true, participants: ['alice'] });
    const end = (await events()).find((e) => e.code === 'T2004I' && e.sid === sid);
    expect(end).toMatchObject({ interactive: true, session_recording: 'on', user: 'alice' });
  });

  it('lets a browser join a session an ssh client started, and sees what it types', async () => {
    const { baseUrl } = await app.listenOnLoopback();
    const child = alice.spawn('ssh', ['-tt', 'root@sshd-host']);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await until(() => /[#$] $/m.test(output), 'a prompt');
    child.stdin.write('echo before-$((6*7))\r');
    await until(() => output.includes('before-42'), 'the first output');
    const [tracker] = app.services.hub.list().filter((t) => t.owner === 'alice');
    // Alice in the browser (her own session: she may join it as a peer).
    const headers = await app.signIn(['root-access'], 'alice');
    const browser = await openTerminal({
      baseUrl,
      headers,
      params: { sid: tracker!.id, mode: 'peer', term: { w: 80, h: 24 } } as never,
    });
    await browser.waitForOutput('before-42');
    browser.type('echo from-browser-$((7*7))\r');
    await until(() => output.includes('from-browser-49'), 'the browser input in the ssh client');
    child.stdin.write('echo after-$((8*8))\r');
    await browser.waitForOutput('after-64');
    child.stdin.write('exit\r');
    await new Promise((resolve) => child.on('exit', resolve));
    await browser.closed;
  });

  it('refuses a login the roles do not allow, with the reason', async () => {
    const result = await alice.run('ssh', ['nobody@sshd-host', 'true']);
    expect(result.code).toBe(255);
    expect(result.stderr).toMatch(/Permission denied/);
  });

  it('refuses a server the user cannot see, like one that does not exist', async () => {
    for (const target of ['root@no-such-host', 'root@127.0.0.2']) {
      const result = await alice.run('ssh', [target, 'true']);
      expect(result.code).toBe(255);
      expect(result.stderr).toMatch(/open failed|Connection closed|stdio forwarding failed/i);
    }
  });

  it('explains itself to a client that logs in to the proxy alone', async () => {
    const result = await alice.run('ssh', ['proxy', 'true']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/this is an SSH proxy/);
  });

  it('forwards a local port when the roles allow it', async () => {
    const web = await listenHttp('through the tunnel');
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const child = alice.spawn('ssh', [
      '-N',
      '-L',
      `${port}:127.0.0.1:${web.port}`,
      'root@sshd-host',
    ]);
    try {
      const body = await retry(async () => (await fetch(`http://127.0.0.1:${port}/`)).text());
      expect(body).toBe('through the tunnel');
      expect((await events()).some((e) => e.code === 'T3003I' && e.user === 'alice')).toBe(true);
    } finally {
      child.kill();
      web.server.close();
    }
  });
});

describe('remote forwarding through the proxy', () => {
  it('has the node listen for the client (ssh -R) when the roles allow port forwarding', async () => {
    // The node (a real sshd on this machine) listens on its loopback; a connection there comes
    // back through the proxy to the client, which connects to its own local web server.
    const web = await listenHttp('back through the tunnel');
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const child = alice.spawn('ssh', [
      '-N',
      '-o',
      'ExitOnForwardFailure=yes',
      '-R',
      `127.0.0.1:${port}:127.0.0.1:${web.port}`,
      'root@sshd-host',
    ]);
    try {
      const body = await retry(async () => (await fetch(`http://127.0.0.1:${port}/`)).text());
      expect(body).toBe('back through the tunnel');
      await vi.waitFor(async () => {
        const forwarded = (await events()).filter(
          (e) =>
            e.code === 'T3003I' && e.user === 'alice' && e['addr.local'] === `127.0.0.1:${port}`,
        );
        expect(forwarded.length).toBeGreaterThan(0);
      });
    } finally {
      child.kill();
      web.server.close();
    }
  });

  it('refuses ssh -R to a login whose roles do not allow port forwarding', async () => {
    const dave = await openSshClient({
      ca: app.services.ca,
      user: 'dave',
      roles: ['root-access', 'no-forwarding'],
      logins: ['root'],
      proxyPort: proxy.port,
    });
    try {
      const port = 20_000 + Math.floor(Math.random() * 20_000);
      const result = await dave.run('ssh', [
        '-N',
        '-o',
        'ExitOnForwardFailure=yes',
        '-R',
        `127.0.0.1:${port}:127.0.0.1:9`,
        'root@sshd-host',
      ]);
      expect(result.code).toBe(255);
      expect(result.stderr).toMatch(/remote port forwarding failed/i);
    } finally {
      await dave.remove();
    }
  });
});

describe('agent forwarding through the proxy', () => {
  it('gives the node the client agent only when a role allows forward_agent', async () => {
    const agent = await startSshAgent(dir);
    const carol = await openSshClient({
      ca: app.services.ca,
      user: 'carol',
      roles: ['root-access', 'agent-forwarding'],
      logins: ['root'],
      proxyPort: proxy.port,
    });
    try {
      const env = { SSH_AUTH_SOCK: agent.socket };
      const allowed = await carol.run('ssh', ['-A', 'root@sshd-host', 'ssh-add -l'], '', env);
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.stdout).toContain(agent.fingerprint);
      const refused = await alice.run('ssh', ['-A', 'root@sshd-host', 'ssh-add -l'], '', env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/Could not open a connection to your authentication agent/);
    } finally {
      await carol.remove();
      agent.stop();
    }
  });
});

describe('sftp and scp through the proxy', () => {
  // The built-in node joins these once the node service serves the sftp subsystem.
  it.each(nodes().slice(0, 1))(
    'sftp puts, lists, renames and removes on %s, each audited',
    async (_, node) => {
      const work = await mkdtemp(path.join(tmpdir(), 'postern-sftp-'));
      try {
        const local = path.join(work, 'up.bin');
        const data = randomBytes(3 * 1024 * 1024 + 17);
        await writeFile(local, data);
        const remote = path.join(work, 'remote');
        const batch = path.join(work, 'batch');
        await writeFile(
          batch,
          [
            `mkdir ${remote}`,
            `put ${local} ${remote}/a.bin`,
            `rename ${remote}/a.bin ${remote}/b.bin`,
            `get ${remote}/b.bin ${work}/down.bin`,
            `ls ${remote}`,
            `rm ${remote}/b.bin`,
            `rmdir ${remote}`,
            '',
          ].join('\n'),
        );
        const result = await alice.run('sftp', ['-b', batch, `root@${node()}`]);
        expect(result.code, result.stderr).toBe(0);
        expect(sha256(await readFile(path.join(work, 'down.bin')))).toBe(sha256(data));
        await expect(stat(remote)).rejects.toThrow();
        const sftp = (await events()).filter(
          (e) => e.event === 'sftp' && String(e.path).startsWith(remote),
        );
        const codes = sftp.map((e) => e.code);
        for (const code of ['TS012I', 'TS001I', 'TS002I', 'TS016I', 'TS011I', 'TS013I'])
          expect(codes).toContain(code);
        const written = sftp.find((e) => e.code === 'TS002I' && e.bytesWritten === data.length);
        expect(written).toMatchObject({ user: 'alice', login: 'root', path: `${remote}/a.bin` });
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
  );

  it('audits a failed SFTP operation with its failure code', async () => {
    const result = await alice.run('sftp', ['-b', '-', 'root@sshd-host'], 'rm /no/such/file\n');
    expect(result.code).not.toBe(0);
    const failed = (await events()).find((e) => e.code === 'TS011E' && e.path === '/no/such/file');
    expect(failed).toMatchObject({ user: 'alice', error: expect.stringMatching(/no such file/i) });
  });

  it.each([
    ['scp (SFTP)', []],
    ['scp -O (the old protocol)', ['-O']],
  ])('%s copies a file both ways, to and from both kinds of node', async (_, flags) => {
    const work = await mkdtemp(path.join(tmpdir(), 'postern-scp-'));
    try {
      // Larger than the 2 MiB windows, so every leg waits for window adjustments: the proxy
      // keeps less in flight towards OpenSSH (in-flight.ts) and the full window towards the
      // node service (ssh2 adjusts only after half its window).
      const data = randomBytes(5 * 1024 * 1024 + 3);
      await writeFile(path.join(work, 'a'), data);
      const copy = async (from: string, to: string) => {
        const result = await alice.run('scp', [...flags, from, to]);
        expect(result.code, result.stderr).toBe(0);
      };
      // Up to the OpenSSH host and back from the node service (the same file), then the
      // other way round.
      await copy(path.join(work, 'a'), `root@sshd-host:${work}/b`);
      await copy(`root@${local.id}:${work}/b`, path.join(work, 'c'));
      await copy(path.join(work, 'c'), `root@${local.id}:${work}/d`);
      await copy(`root@sshd-host:${work}/d`, path.join(work, 'e'));
      expect(sha256(await readFile(path.join(work, 'e')))).toBe(sha256(data));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});

/** A real ssh-agent holding one fresh key. */
async function startSshAgent(parent: string) {
  const socket = path.join(parent, `agent-${Date.now()}.sock`);
  const child = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
  await untilAsync(
    () =>
      stat(socket).then(
        () => true,
        () => false,
      ),
    'ssh-agent',
  );
  const key = path.join(parent, `agent-key-${Date.now()}`);
  const run = (file: string, args: string[]) =>
    new Promise<string>((resolve, reject) =>
      execFile(file, args, { env: { ...process.env, SSH_AUTH_SOCK: socket } }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  await run('ssh-add', ['-q', key]);
  const fingerprint = (await run('ssh-keygen', ['-l', '-f', `${key}.pub`])).split(' ')[1]!;
  return { socket, fingerprint, stop: () => child.kill() };
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function until(check: () => boolean, what: string, ms = 15_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function untilAsync(check: () => Promise<boolean>, what: string, ms = 15_000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function retry<T>(attempt: () => Promise<T>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > end) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function listenHttp(body: string): Promise<{ server: HttpServer; port: number }> {
  const server = createHttpServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}
