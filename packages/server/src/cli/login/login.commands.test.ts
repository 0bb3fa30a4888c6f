import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { inviteUser, type TestUser } from '../../testing/identity.testkit.js';
import { totpCode } from '../../testing/totp.testkit.js';
import { createOpsRole } from '../../testing/ssh-login.testkit.js';
import { hostActor } from '../../access-control/access/actor.js';
import { addLoginCommands } from './login.commands.js';

let app: TestApp;
let proxy: string;
let alice: TestUser;
let dir: string;

beforeAll(async () => {
  app = await createTestApp();
  proxy = (await app.listenOnLoopback()).baseUrl;
  await createOpsRole(app);
  alice = await inviteUser(app, 'alice', { roles: ['ops'] });
  await app.services.inventory.addOpenSsh(
    { name: 'web-1', addr: '127.0.0.21:22', labels: { env: 'prod' } },
    hostActor('test'),
  );
  dir = await mkdtemp(path.join(tmpdir(), 'postern-login-'));
});
afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

interface Run {
  lines: string[];
  /** Each run of the system's ssh or scp: the program, then its arguments. */
  openSsh: string[][];
}

/** Runs `postern <args>` as main would, with piped answers to the prompts. */
async function postern(home: string, args: string[], answers: string[] = []): Promise<Run> {
  const run: Run = { lines: [], openSsh: [] };
  const program = new Command('postern').enablePositionalOptions().exitOverride();
  addLoginCommands(program, {
    env: { POSTERN_HOME: path.join(home, '.postern'), HOME: home, USER: 'alice' },
    io: { input: Readable.from(answers.map((answer) => `${answer}\n`)), output: new PassThrough() },
    print: (line) => run.lines.push(line),
    pollIntervalMs: 20,
    runOpenSsh: async (program, args) => {
      run.openSsh.push([program, ...args]);
      return 0;
    },
  });
  await program.parseAsync(['node', 'postern', ...args]);
  return run;
}

/** The code an authenticator app would show for the server's clock, one step on each time. */
function code(): string {
  app.clock.advance(30_000);
  return totpCode(alice.totpSecret!, app.clock.now());
}

const mode = async (file: string) => (await stat(file)).mode & 0o777;

describe('postern login (password and TOTP)', () => {
  const home = () => path.join(dir, 'alice-home');

  it('writes the key, certificate, known_hosts, profile and ssh_config', async () => {
    const run = await postern(home(), ['login', '--proxy', proxy], [alice.password!, code()]);
    const posternHome = path.join(home(), '.postern');
    const keyPath = path.join(posternHome, 'keys', '127.0.0.1', 'alice');
    expect(run.lines[0]).toMatch(/^Logged in as alice to test-cluster/);
    expect(await readFile(keyPath, 'utf8')).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    expect(await mode(keyPath)).toBe(0o600);
    expect(await readFile(`${keyPath}-cert.pub`, 'utf8')).toMatch(
      /^ssh-ed25519-cert-v01@openssh\.com /,
    );
    expect(await readFile(path.join(posternHome, 'known_hosts'), 'utf8')).toMatch(
      /^@cert-authority \* ssh-ed25519 /,
    );
    const profilePath = path.join(posternHome, 'profile.json');
    expect(await mode(profilePath)).toBe(0o600);
    expect(JSON.parse(await readFile(profilePath, 'utf8'))).toMatchObject({
      proxy,
      user: 'alice',
      cluster: 'test-cluster',
      ssh_proxy_addr: 'proxy.test:3023',
      key_path: keyPath,
      cert_path: `${keyPath}-cert.pub`,
    });
    expect(await readFile(path.join(posternHome, 'ssh_config'), 'utf8')).toBe(
      [
        '# written by postern login; do not edit',
        'Host web-1 *.test-cluster',
        '    ProxyJump alice@proxy.test:3023',
        'Host proxy.test web-1 *.test-cluster',
        `    IdentityFile ${keyPath}`,
        `    CertificateFile ${keyPath}-cert.pub`,
        `    UserKnownHostsFile ${path.join(posternHome, 'known_hosts')}`,
        '    IdentitiesOnly yes',
        '    Ciphers aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr',
        '',
      ].join('\n'),
    );
  });

  it('puts the Include line first in ~/.ssh/config, once', async () => {
    const userConfig = path.join(home(), '.ssh', 'config');
    const include = `Include ${path.join(home(), '.postern', 'ssh_config')}`;
    expect((await readFile(userConfig, 'utf8')).split('\n')[0]).toBe(include);
    await writeFile(userConfig, `${include}\nHost *\n    ServerAliveInterval 30\n`);
    const again = await postern(home(), ['login', '--proxy', proxy], [alice.password!, code()]);
    expect(again.lines.at(-1)).toMatch(/includes .* already/);
    expect((await readFile(userConfig, 'utf8')).match(/Include/g)).toHaveLength(1);
  });

  it('leaves ~/.ssh/config alone with --no-ssh-config', async () => {
    const other = path.join(dir, 'no-config-home');
    await postern(other, ['login', '--proxy', proxy, '--no-ssh-config'], [alice.password!, code()]);
    await expect(stat(path.join(other, '.ssh', 'config'))).rejects.toThrow();
  });

  it('status shows the user, cluster, roles, logins and expiry', async () => {
    const { lines } = await postern(home(), ['status']);
    const text = lines.join('\n');
    expect(text).toMatch(/User:\s+alice/);
    expect(text).toMatch(/Cluster:\s+test-cluster/);
    expect(text).toMatch(/Roles:\s+ops/);
    expect(text).toMatch(/Logins:\s+root, ubuntu/);
    // The test clock runs ahead of the real one by the TOTP steps taken, so about 2h.
    expect(text).toMatch(/Valid until:\s+\S+Z \(2h\d+m left\)/);
  });

  it('ls lists the nodes through a certificate-signed request', async () => {
    const { lines } = await postern(home(), ['ls']);
    expect(lines[0]).toMatch(/^Node\s+Address\s+Logins\s+Labels$/);
    expect(lines[1]).toMatch(/^web-1\s+127\.0\.0\.21:22\s+root,ubuntu\s+env=prod$/);
  });

  it('ssh runs the system ssh with the generated config', async () => {
    const { openSsh } = await postern(home(), ['ssh', 'root@web-1', 'uptime', '-p']);
    expect(openSsh).toEqual([
      ['ssh', '-F', path.join(home(), '.postern', 'ssh_config'), 'root@web-1', 'uptime', '-p'],
    ]);
  });

  it("ssh passes ssh's own options as given (forwarding, -N), and wants a node", async () => {
    const args = ['-N', '-L', '8080:127.0.0.1:80', '-o', 'ExitOnForwardFailure=yes', 'root@web-1'];
    const { openSsh } = await postern(home(), ['ssh', ...args]);
    expect(openSsh).toEqual([['ssh', '-F', path.join(home(), '.postern', 'ssh_config'), ...args]]);
    await expect(postern(home(), ['ssh', '-N'])).rejects.toThrow(/^usage: postern ssh/);
  });

  it("scp runs the system scp with the generated config, scp's options as given", async () => {
    const args = ['-r', '-P', '22', 'dir', 'root@web-1:/tmp/'];
    const { openSsh } = await postern(home(), ['scp', ...args]);
    expect(openSsh).toEqual([['scp', '-F', path.join(home(), '.postern', 'ssh_config'), ...args]]);
    await expect(postern(home(), ['scp', '-r'])).rejects.toThrow(/usage: postern scp/);
  });

  it('logout removes the key, certificate and profile and keeps the rest', async () => {
    const posternHome = path.join(home(), '.postern');
    const { lines } = await postern(home(), ['logout']);
    expect(lines[0]).toMatch(/^Logged out alice/);
    for (const gone of ['keys/127.0.0.1/alice', 'keys/127.0.0.1/alice-cert.pub', 'profile.json']) {
      await expect(stat(path.join(posternHome, gone))).rejects.toThrow();
    }
    await stat(path.join(posternHome, 'known_hosts'));
    await stat(path.join(posternHome, 'ssh_config'));
    await expect(postern(home(), ['ls'])).rejects.toThrow(/not logged in/);
  });
});

describe('postern login errors', () => {
  const home = () => path.join(dir, 'errors-home');

  it('says so for a wrong password', async () => {
    await expect(
      postern(home(), ['login', '--proxy', proxy], ['wrong password', code()]),
    ).rejects.toThrow(/^login failed: wrong user name, password or authenticator code/);
  });

  it('says so for a proxy that cannot be reached', async () => {
    const before = process.exitCode;
    const errors: string[] = [];
    const original = console.error;
    console.error = (line: string) => errors.push(line);
    try {
      await postern(home(), ['login', '--proxy', 'http://127.0.0.1:1'], ['x', '1']);
    } finally {
      console.error = original;
    }
    expect(process.exitCode).toBe(1);
    process.exitCode = before;
    expect(errors[0]).toMatch(/^postern: cannot reach the proxy at http:\/\/127\.0\.0\.1:1/);
  });

  it('refuses ls and ssh once the login expired', async () => {
    await postern(home(), ['login', '--proxy', proxy, '--ttl', '1m'], [alice.password!, code()]);
    const profilePath = path.join(home(), '.postern', 'profile.json');
    const profile = JSON.parse(await readFile(profilePath, 'utf8'));
    await writeFile(
      profilePath,
      JSON.stringify({ ...profile, expires: new Date(0).toISOString() }),
    );
    await expect(postern(home(), ['ls'])).rejects.toThrow(/your login expired .*postern login/);
    await expect(postern(home(), ['ssh', 'web-1'])).rejects.toThrow(/your login expired/);
  });
});

describe('postern login --headless', () => {
  it('waits for the approval in the browser, then writes the same files', async () => {
    const bob = await inviteUser(app, 'bob', { roles: ['ops'], device: 'webauthn' });
    const home = path.join(dir, 'headless-home');
    const lines: string[] = [];
    const program = new Command('postern').enablePositionalOptions().exitOverride();
    addLoginCommands(program, {
      env: { POSTERN_HOME: path.join(home, '.postern'), HOME: home },
      io: { input: Readable.from([]), output: new PassThrough() },
      print: (line) => lines.push(line),
      pollIntervalMs: 20,
    });
    const done = program.parseAsync([
      'node',
      'postern',
      'login',
      '--headless',
      '--user',
      'bob',
      '--proxy',
      proxy,
    ]);
    await expect.poll(() => lines[0] ?? '').toMatch(/^Complete the login in your browser: /);
    const id = /\/web\/headless\/([0-9a-f]+)$/.exec(lines[0]!)![1]!;
    const challenge = await app.server.inject({
      method: 'POST',
      url: `/v1/webapi/headless/${id}/challenge`,
      headers: bob.headers,
    });
    const assertion = bob.authenticator!.assert(challenge.json().webauthn_challenge.publicKey);
    const approved = await app.server.inject({
      method: 'PUT',
      url: `/v1/webapi/headless/${id}`,
      headers: bob.headers,
      payload: { action: 'accept', webauthnAssertionResponse: assertion },
    });
    expect(approved.statusCode, approved.body).toBe(200);
    await done;
    expect(lines.some((line) => line.startsWith('Logged in as bob to test-cluster'))).toBe(true);
    await stat(path.join(home, '.postern', 'keys', '127.0.0.1', 'bob-cert.pub'));
  });
});
