import { hostname } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestApp } from '../../../testing/app-harness.testkit.js';
import type { OpenSshClientSetup } from '../../../testing/openssh-client.testkit.js';
import {
  listenHttp,
  randomForwardPort,
  retry,
  bothNodes,
  startSshProxyWorld,
  type SshProxyWorld,
} from '../../../testing/ssh-proxy-world.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';

// The stock OpenSSH client (ssh) through the SSH proxy to a real sshd and to the built-in node
// service: the same rules, sessions, recordings and audit as the browser. Forwarding is in
// ssh-proxy-forwarding.test.ts, sftp and scp in ssh-proxy-files.test.ts.
let world: SshProxyWorld;
let app: TestApp;
let sshd: SshProxyWorld['sshd'];
let local: SshProxyWorld['local'];
let alice: OpenSshClientSetup;

beforeAll(async () => {
  world = await startSshProxyWorld();
  ({ app, sshd, local, alice } = world);
}, 60_000);

afterAll(() => world?.stop());

const events = () => world.events();

const nodes = () => bothNodes(() => world);

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
      const end = await vi.waitFor(
        async () => {
          const found = (await events()).find((e) => e.code === 'T2004I' && e.sid === sid);
          if (!found) throw new Error('no end event yet');
          return found;
        },
        { timeout: 15_000, interval: 50 },
      );
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
    const index = await vi.waitFor(
      async () => {
        const sealed = await app.services.recordings.readIndex(sid);
        if (!sealed) throw new Error('the recording is not sealed yet');
        return sealed;
      },
      { timeout: 15_000, interval: 50 },
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
    const port = randomForwardPort();
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

async function until(check: () => boolean, what: string, ms = 15_000) {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
