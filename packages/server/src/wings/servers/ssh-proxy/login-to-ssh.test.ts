import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { OpenSshRunner, SshRunners } from '../../../cli/login/ssh-commands.js';
import { systemPipedSsh } from '../../../cli/login/ssh-commands.js';
import type { TestApp } from '../../../testing/app-harness.testkit.js';
import { startCliSshWorld, type CliSshWorld } from '../../../testing/cli-ssh-world.testkit.js';
import { freePort, startSshd } from '../../../testing/sshd.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';

// The README's path for a new user: `postern login` with a password and a code, then the stock
// ssh, scp and sftp, through the Include line in ~/.ssh/config, with nothing else set up.
let world: CliSshWorld;
let app: TestApp;
const labSshds: Awaited<ReturnType<typeof startSshd>>[] = [];
let home: string;
let postern: CliSshWorld['postern'];
let login: CliSshWorld['login'];
let stock: CliSshWorld['stock'];

beforeAll(async () => {
  world = await startCliSshWorld();
  ({ app, home, postern, login, stock } = world);
}, 60_000);

afterAll(async () => {
  for (const each of labSshds) await each.stop();
  await world?.stop();
});

describe('from postern login to the stock OpenSSH client', () => {
  it('login writes the files and the Include line', async () => {
    const lines = await login();
    expect(lines[0]).toMatch(/^Logged in as alice/);
    const userConfig = await readFile(path.join(home, '.ssh', 'config'), 'utf8');
    expect(userConfig.split('\n')[0]).toBe(`Include ${path.join(home, '.postern', 'ssh_config')}`);
  });

  it('ssh root@web-1 works with nothing else set up, trusting the host CA only', async () => {
    const result = await stock('ssh', ['root@web-1', 'echo "hello from $(hostname)"']);
    expect(result.stderr).not.toMatch(/authenticity|WARNING/);
    expect(result).toMatchObject({ code: 0, stdout: expect.stringMatching(/^hello from /) });
  });

  it('ssh root@web-1.<cluster> reaches the same server, the name form the config matches', async () => {
    const cluster = app.config.clusterName;
    const result = await stock('ssh', [`root@web-1.${cluster}`, 'echo "hello from $(hostname)"']);
    expect(result.stderr).not.toMatch(/authenticity|WARNING|unknown target/);
    const direct = await stock('ssh', ['root@web-1', 'echo "hello from $(hostname)"']);
    expect(result).toMatchObject({ code: 0, stdout: direct.stdout });
    expect(result.stdout).toMatch(/^hello from /);
    // Another cluster's name is not stripped: that server is not this proxy's to reach.
    const other = await stock('ssh', ['root@web-1.other-cluster', 'true']);
    expect(other.code).not.toBe(0);
  });

  it('both hops of the jump use AES-GCM, the cipher the written config puts first', async () => {
    const result = await stock('ssh', ['-v', 'root@web-1', 'true']);
    expect(result.code, result.stderr).toBe(0);
    // -v reaches the jump's ssh too: one "cipher" line per direction per hop.
    const ciphers = [
      ...result.stderr.matchAll(/kex: (?:server->client|client->server) cipher: (\S+)/g),
    ];
    expect(ciphers.map((match) => match[1])).toEqual(Array(4).fill('aes128-gcm@openssh.com'));
  });

  it('scp and sftp work the same way', async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'postern-readme-'));
    try {
      const data = randomBytes(512 * 1024);
      await writeFile(path.join(work, 'a'), data);
      const up = await stock('scp', [path.join(work, 'a'), `root@web-1:${work}/b`]);
      expect(up.code, up.stderr).toBe(0);
      const listing = await stock(
        'sftp',
        ['-b', '-', 'root@web-1'],
        `ls -l ${work}\nget ${work}/b ${work}/c\n`,
      );
      expect(listing.code, listing.stderr).toBe(0);
      expect(listing.stdout).toContain(`${work}/b`);
      const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
      expect(digest(await readFile(path.join(work, 'c')))).toBe(digest(data));
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('postern scp copies both ways with the generated config alone (no ~/.ssh/config needed)', async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'postern-scp-'));
    // The real scp with the arguments postern built; BatchMode so that a prompt fails, not hangs.
    const ran: { args: string[]; code: number }[] = [];
    const runOpenSsh: OpenSshRunner = (program, args) =>
      new Promise((resolve) =>
        execFile(program, ['-o', 'BatchMode=yes', ...args], { timeout: 30_000 }, (error) => {
          const code = error ? Number((error as { code?: number }).code ?? 1) : 0;
          ran.push({ args: [program, ...args], code });
          resolve(code);
        }),
      );
    try {
      const data = randomBytes(256 * 1024);
      await writeFile(path.join(work, 'a'), data);
      await postern(['scp', path.join(work, 'a'), `root@web-1:${work}/b`], { runOpenSsh });
      await postern(['scp', '-p', `root@web-1:${work}/b`, path.join(work, 'c')], { runOpenSsh });
      expect(ran).toEqual(
        Array(2).fill({
          args: expect.arrayContaining(['scp', '-F', path.join(home, '.postern', 'ssh_config')]),
          code: 0,
        }),
      );
      expect(Buffer.compare(await readFile(path.join(work, 'c')), data)).toBe(0);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  it('postern ssh root@env=lab runs a command on every node with the label, each line marked', async () => {
    // Two more servers, labelled, and added after login (no login again): reached by id in the
    // cluster, which the written config jumps for.
    const lab = await Promise.all(
      [1, 2].map(() => startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() })),
    );
    labSshds.push(...lab);
    for (const [index, server] of lab.entries()) {
      await app.services.inventory.addOpenSsh(
        { name: `lab-${index + 1}`, addr: `127.0.0.1:${server.port}`, labels: { env: 'lab' } },
        hostActor('test'),
      );
    }
    const out: string[] = [];
    const err: string[] = [];
    const write = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
    // The real ssh, piped; BatchMode so that a prompt fails rather than hangs.
    const runPipedSsh: SshRunners['runPiped'] = (args, sink) =>
      systemPipedSsh(['-o', 'BatchMode=yes', ...args], sink);
    const exitCodes: (number | string | undefined)[] = [];
    const run = async (command: string) => {
      out.length = 0;
      err.length = 0;
      process.exitCode = undefined;
      await postern(['ssh', 'root@env=lab', command], { runPipedSsh, write });
      exitCodes.push(process.exitCode);
      process.exitCode = undefined;
    };

    await run('echo one; echo two');
    expect(out.join('').split('\n').sort()).toEqual([
      '',
      '[lab-1] one',
      '[lab-1] two',
      '[lab-2] one',
      '[lab-2] two',
    ]);
    expect(err.join('')).not.toMatch(/authenticity|WARNING/);

    await run('echo bye; exit 3');
    expect(out.join('')).toContain('[lab-2] bye\n');
    expect(err.join('')).toContain('postern: 2 of 2 nodes failed: lab-1 (exit 3), lab-2 (exit 3)');
    expect(exitCodes).toEqual([0, 3]);

    await expect(
      postern(['ssh', 'root@env=nowhere', 'id'], { runPipedSsh, write }),
    ).rejects.toThrow(/no node you may reach has the labels env=nowhere/);
    await expect(postern(['ssh', 'root@env=lab'], { runPipedSsh, write })).rejects.toThrow(
      /give a command/,
    );
  });

  it('postern ls filters by labels and by search, and prints JSON for scripts', async () => {
    const byLabel = await postern(['ls', 'env=lab']);
    expect(byLabel[0]).toMatch(/^Node\s+Address\s+Logins\s+Labels$/);
    expect(byLabel.slice(1).map((line) => line.split(/\s+/)[0])).toEqual(['lab-1', 'lab-2']);
    const searched = JSON.parse(
      (await postern(['ls', '--search', 'lab-2', '--format', 'json']))[0]!,
    );
    expect(searched).toEqual([
      expect.objectContaining({
        hostname: 'lab-2',
        labels: { env: 'lab' },
        logins: expect.arrayContaining(['root']),
      }),
    ]);
    await expect(postern(['ls', 'web-1'])).rejects.toThrow(/not a label selector/);
  });

  it("postern ssh -N -L forwards a local port through the proxy, ssh's options passed as given", async () => {
    // Port forwarding is a role option that any role can turn off (ops does): alice gets a role
    // that reaches the same node with it on, instead.
    await app.services.roles.create(
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name: 'forwarding' },
        spec: {
          options: { port_forwarding: true },
          allow: { node_labels: { '*': '*' }, logins: ['root'] },
        },
      }),
      hostActor('test'),
    );
    await app.services.users.update({ name: 'alice', roles: ['forwarding'] }, 'test');
    await login();
    const target = createServer((_req, res) => res.end('forwarded'));
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const localPort = await freePort();
    let child: ChildProcess | undefined;
    // The real ssh; -N runs until it is stopped, so this runner resolves when it exits.
    const runOpenSsh: OpenSshRunner = (program, args) =>
      new Promise((resolve) => {
        child = spawn(program, ['-o', 'BatchMode=yes', ...args], { stdio: 'ignore' });
        child.once('exit', (code) => resolve(code ?? 1));
      });
    const forward = `${localPort}:127.0.0.1:${(target.address() as AddressInfo).port}`;
    const running = postern(['ssh', '-N', '-L', forward, 'root@web-1'], { runOpenSsh });
    try {
      await vi.waitFor(async () => expect(await httpText(localPort)).toBe('forwarded'), {
        timeout: 20_000,
        interval: 250,
      });
    } finally {
      child?.kill();
      await running.catch(() => undefined);
      target.close();
    }
  });
});

/** The body of GET / on a loopback port. */
function httpText(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}
