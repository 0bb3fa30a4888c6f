import { agentPaths } from '@postern/contracts';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import type { TestApp } from '../../testing/app-harness.testkit.js';
import type { OpenSshClientSetup } from '../../testing/openssh-client.testkit.js';
import type { TerminalFixture } from '../../testing/terminal-fixture.testkit.js';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import * as postern from '../../cli/login/ssh-commands.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { startSshd } from '../../testing/sshd.testkit.js';
import { startRootAndLeaf, type RootAndLeaf } from './ssh-through-root.testkit.js';
import { approvedRequest } from '../../testing/access-requests.testkit.js';

/**
 * Stock OpenSSH through the root's jump host to a leaf's server (a real sshd): `ssh -J
 * alice@root root@test-host.leaf`. The leaf's SSH proxy ends the inner connection with the roles
 * its role map gives; the client trusts the leaf's host CA for `*.leaf` only.
 */
const admin = hostActor('cli:test');

describe('ssh to a leaf cluster through the root', () => {
  let world: RootAndLeaf;
  let root: TestApp;
  let leaf: TerminalFixture;
  let rootPort: number;
  const homes: string[] = [];
  const stops: (() => Promise<unknown>)[] = [];
  const clientOf: RootAndLeaf['clientOf'] = (user, roles, marks) =>
    world.clientOf(user, roles, marks);
  const ssh = (client: OpenSshClientSetup, target: string, command: string) =>
    world.ssh(client, target, command);
  const leafEvents = () => world.leafEvents();
  const rootEvents = () => world.rootEvents();

  beforeAll(async () => {
    world = await startRootAndLeaf((leafRole) => `[{remote: access, local: [${leafRole}]}]`);
    ({ root, leaf, rootPort } = world);
  });
  afterAll(async () => {
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
    await Promise.all(stops.map((stop) => stop()));
    await world?.stop();
  });

  it("trusts the leaf's host CA for the leaf's names only", () => {
    // Every login on the root gets these lines after the root's own (cert-issuer.ts).
    expect(root.context.clusterSsh.hostSigners()).toEqual([
      `@cert-authority *.leaf ${leaf.app.services.ca.hostCaPublicKey} postern-host-ca@leaf`,
    ]);
  });

  it("runs a command on the leaf's server, audited on the leaf as the root's user", async () => {
    const alice = await clientOf('alice', ['access']);
    const result = await ssh(alice, 'root@test-host.leaf', 'echo leaf-says-$((6*7))');
    expect(result.stderr).not.toMatch(/denied|failed/i);
    expect(result.stdout).toContain('leaf-says-42');
    expect(result.code).toBe(0);
    await eventually(
      async () => (await leafEvents()).some((e) => e.code === 'T2004I' && e.user === 'alice'),
      20_000,
      'the session end',
    );
    const events = await leafEvents();
    expect(events.find((e) => e.code === 'T1001I' && e.user === 'alice')).toMatchObject({
      method: 'trusted_cluster',
      connector: 'root',
      roles: [leaf.role],
    });
    expect(events.find((e) => e.code === 'T2000I' && e.user === 'alice')).toMatchObject({
      server_id: leaf.nodeId,
      login: 'root',
    });
    // The root records the hop, start and end: the leaf records the session.
    await eventually(
      async () => (await rootEvents()).some((e) => e.code === 'TPOS061I' && e.user === 'alice'),
      10_000,
      "the root's hop end",
    );
    const hops = (await rootEvents()).filter((e) => e.user === 'alice');
    expect(hops.find((e) => e.code === 'TPOS060I')).toMatchObject({
      cluster: 'leaf',
      server: expect.stringMatching(/^test-host\.leaf:22$/),
    });
    expect(hops.find((e) => e.code === 'TPOS061I')).toMatchObject({ reason: 'closed' });
  });

  it('postern ssh --cluster leaf runs a command on every leaf server with the labels', async () => {
    // A second server of the leaf, labelled (a real sshd of its own), and the first unlabelled.
    const sshd = await startSshd({
      trustedUserCaKeys: leaf.app.services.ca.trustedUserCaKeysLine(),
    });
    stops.push(() => sshd.stop());
    const web = await leaf.app.services.inventory.addOpenSsh(
      { name: 'web-2', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'prod' } },
      admin,
    );
    const alice = await clientOf('alice', ['access']);
    // A POSTERN_HOME as postern login on the root leaves it: the profile and the signing key,
    // and the ssh_config that routes every host through the root's SSH proxy.
    const { home } = await signedInHome(root, rootPort, 'alice', ['access']);
    homes.push(home);
    await copyFile(alice.configFile, path.join(home, 'ssh_config'));
    const out: string[] = [];
    const err: string[] = [];
    const code = await postern.ssh(
      { POSTERN_HOME: home },
      ['--cluster', 'leaf', 'root@env=prod', 'echo', 'on-$(hostname)-$((6*7))'],
      {
        run: () => Promise.reject(new Error('one node was not asked for')),
        runPiped: postern.systemPipedSsh,
        write: { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
        askCode: () => Promise.reject(new Error('no per-session MFA here')),
      },
    );
    expect(err.join('')).toBe('');
    expect(code).toBe(0);
    // Only the labelled server ran it, and its line is prefixed with its name on the leaf.
    expect(out.join('')).toMatch(/^\[web-2\] on-.*-42\n$/);
    await eventually(
      async () =>
        (await leafEvents()).some(
          (e) => e.code === 'T2000I' && e.user === 'alice' && e.server_id === web.metadata.name,
        ),
      20_000,
      'the session on web-2',
    );
    const none = postern.ssh({ POSTERN_HOME: home }, ['--cluster', 'leaf', 'env=dev', 'true'], {
      run: () => Promise.resolve(0),
      runPiped: () => Promise.resolve(0),
      write: { stdout: () => undefined, stderr: () => undefined },
      askCode: () => Promise.resolve(''),
    });
    await expect(none).rejects.toThrow('no node you may reach in leaf has the labels env=dev');
    // One server by its name on the leaf: ssh is run for <name>.leaf.
    let single = '';
    const exit = await postern.ssh(
      { POSTERN_HOME: home },
      ['--cluster', 'leaf', 'root@web-2', 'echo single-$((6*7))'],
      {
        run: (program, args) =>
          new Promise((resolve) => {
            execFile(program, args, (error, stdout) => {
              single = stdout;
              resolve(error ? 1 : 0);
            });
          }),
        runPiped: () => Promise.reject(new Error('not a label selector')),
        write: { stdout: () => undefined, stderr: () => undefined },
        askCode: () => Promise.reject(new Error('no per-session MFA here')),
      },
    );
    expect([exit, single]).toEqual([0, 'single-42\n']);
  });

  it("copies a file from the leaf's server with scp (sftp underneath)", async () => {
    const alice = await clientOf('alice', ['access']);
    const copy = path.join(alice.dir, 'os-release');
    const result = await alice.run('scp', ['root@test-host.leaf:/etc/os-release', copy]);
    expect(result.stderr).toBe('');
    expect(await readFile(copy, 'utf8')).toBe(await readFile('/etc/os-release', 'utf8'));
  });

  it("fails the host check without the leaf's host CA: the root cannot vouch for it", async () => {
    const bob = await clientOf('bob', ['access']);
    await writeFile(path.join(bob.dir, 'known_hosts'), `${root.services.ca.knownHostsLine()}\n`);
    const result = await ssh(bob, 'root@test-host.leaf', 'true');
    expect(result.code).toBe(255);
    expect(result.stderr).toMatch(/Host key verification failed/);
  });

  it('tells a user whose roles map to nothing on the leaf why, from the leaf', async () => {
    const eddie = await clientOf('eddie', ['editor']);
    const result = await ssh(eddie, 'root@test-host.leaf', 'true');
    expect(result.code).toBe(255);
    expect(result.stderr).toMatch(/none of eddie's roles on root \(editor\) map to a role on leaf/);
  });

  it('refuses a server the leaf does not have, like a local one', async () => {
    const alice = await clientOf('alice', ['access']);
    const result = await ssh(alice, 'root@no-such-host.leaf', 'true');
    expect(result.code).toBe(255);
    expect(result.stderr).toMatch(/open failed|Connection closed|stdio forwarding failed/i);
  });

  it("a lock on the leaf refuses the root's user there, saying so", async () => {
    const lena = await clientOf('lena', ['access']);
    await leaf.app.services.locks.create(
      { targets: { user: 'lena' }, message: 'leaf says no' },
      admin,
    );
    await eventually(
      () => leaf.app.services.lockWatcher.lockFor({ user: 'lena', roles: [] }) !== undefined,
      20_000,
      'the lock',
    );
    const result = await ssh(lena, 'root@test-host.leaf', 'true');
    expect(result.code).toBe(255);
    expect(result.stderr).toMatch(/locked: leaf says no/);
  });

  it('a lock on the root ends a running session on the leaf within seconds', async () => {
    const larry = await clientOf('larry', ['access']);
    const child = larry.spawn('ssh', ['root@test-host.leaf', 'echo started; sleep 60']);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await eventually(() => output.includes('started'), 20_000, 'the session');
    const lockedAt = Date.now();
    await root.services.locks.create(
      { targets: { user: 'larry' }, message: 'root says no' },
      admin,
    );
    expect(await exited).not.toBe(0);
    expect(Date.now() - lockedAt).toBeLessThan(10_000);
    // The root's own log says why the hop ended.
    await eventually(
      async () =>
        (await rootEvents()).some(
          (e) =>
            e.code === 'TPOS061I' && e.user === 'larry' && /root says no/.test(String(e.reason)),
        ),
      10_000,
      "the root's hop end",
    );
  });

  // A lock on what the root user's certificate carries: the MFA device its login was proven
  // with, or an access request it assumed. The other certificate of the same user goes on.
  it.each([
    {
      what: 'MFA device',
      carried: async () => {
        const id = randomUUID();
        return { marks: { mfaDevice: id }, target: { mfa_device: id } };
      },
    },
    {
      what: 'assumed access request',
      carried: async () => {
        const id = await approvedRequest(root, 'mia', ['auditor']);
        return { marks: { accessRequests: [id] }, target: { access_request: id } };
      },
    },
  ])(
    "a lock on the root's $what ends a running session on the leaf; another's goes on",
    async ({ what, carried }) => {
      const { marks, target } = await carried();
      const message = `${what} revoked`;
      const mia = await clientOf('mia', ['access'], marks);
      const kept = await clientOf('mia', ['access'], { mfaDevice: randomUUID() });
      const start = (client: OpenSshClientSetup) => {
        const child = client.spawn('ssh', ['root@test-host.leaf', 'echo started; sleep 60']);
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
        return { child, exited, started: () => output.includes('started') };
      };
      const onLocked = start(mia);
      const onKept = start(kept);
      await eventually(() => onLocked.started() && onKept.started(), 20_000, 'both sessions');
      const lock = await root.services.locks.create({ targets: target, message }, admin);
      try {
        expect(await onLocked.exited).not.toBe(0);
        // The root's own log says why that hop ended; the other certificate's hop is still up.
        await eventually(
          async () =>
            (await rootEvents()).some(
              (e) =>
                e.code === 'TPOS061I' && e.user === 'mia' && String(e.reason).includes(message),
            ),
          10_000,
          "the root's hop end",
        );
        expect(onKept.child.exitCode).toBeNull();
      } finally {
        onKept.child.kill();
        await onKept.exited;
        await root.services.locks.remove(lock.metadata.name, admin);
      }
    },
  );

  it("the leaf's SSH upgrade exists only on a root's tunnel, not on the leaf's web port", async () => {
    const url = new URL(leaf.baseUrl + agentPaths.leafSsh);
    const status = await new Promise<number | 'upgraded' | 'closed'>((resolve) => {
      const req = request(url, {
        headers: { connection: 'Upgrade', upgrade: 'postern-ssh', 'x-postern-ssh-host': 'x' },
      });
      req.on('upgrade', (_res, socket) => {
        socket.destroy();
        resolve('upgraded');
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', () => resolve('closed'));
      req.end();
    });
    expect(status).not.toBe('upgraded');
  });
});
