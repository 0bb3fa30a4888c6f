import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { assumedRequestsOf } from '../../ssh/ca.service.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { inviteUser, type TestUser } from '../../testing/identity.testkit.js';
import { startTestSshProxy } from '../../testing/ssh-proxy.testkit.js';
import { startSshd } from '../../testing/sshd.testkit.js';
import { addLoginCommands } from '../login/login.commands.js';
import { addRequestCommands } from './requests.commands.js';

// The whole CLI path of an access request on a real OpenSSH sshd: alice asks with `postern
// request create`, bob approves with `postern request review`, alice assumes it, and plain ssh
// through the proxy reaches a server that only the request allows; dropping it takes that away.
let app: TestApp;
let sshd: Awaited<ReturnType<typeof startSshd>>;
let sshProxy: Awaited<ReturnType<typeof startTestSshProxy>>;
let proxy: string;
let dir: string;
const users: Record<string, TestUser> = {};

beforeAll(async () => {
  app = await createTestApp({ auth: { second_factor: 'off' } });
  proxy = (await app.listenOnLoopback()).baseUrl;
  const admin = hostActor('test');
  const role = (name: string, allow: object) =>
    JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } });
  await app.services.roles.create(
    role('root-on-lab', { node_labels: { env: 'lab' }, logins: ['root'] }),
    admin,
  );
  await app.services.roles.create(
    role('asks-root', { request: { roles: ['root-on-lab'] } }),
    admin,
  );
  await app.services.roles.create(
    role('reviews-root', { review_requests: { roles: ['root-on-lab'] } }),
    admin,
  );
  await app.services.roles.create(
    role('searches-lab', { request: { search_as_roles: ['root-on-lab'] } }),
    admin,
  );
  users.alice = await inviteUser(app, 'alice', { roles: ['asks-root'], device: 'none' });
  users.carol = await inviteUser(app, 'carol', { roles: ['searches-lab'], device: 'none' });
  users.bob = await inviteUser(app, 'bob', { roles: ['reviews-root'], device: 'none' });
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  await app.services.inventory.addOpenSsh(
    { name: 'lab-1', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'lab' } },
    admin,
  );
  sshProxy = await startTestSshProxy(app);
  dir = await mkdtemp(path.join(tmpdir(), 'postern-requests-'));
}, 60_000);

afterAll(async () => {
  await sshProxy?.stop();
  await sshd?.stop();
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const homeOf = (user: string) => path.join(dir, user);
const envOf = (user: string) => ({
  POSTERN_HOME: path.join(homeOf(user), '.postern'),
  HOME: homeOf(user),
  USER: user,
});

/** Runs `postern <args>` as `user`, answering the password and code prompts of a login. */
async function postern(user: string, args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const program = new Command('postern').enablePositionalOptions().exitOverride();
  // Passwords only (second_factor: off): TOTP steps would need the clock moved past the
  // minute of skew that the SSH proxy and sshd allow.
  const answers = args[0] === 'login' ? [users[user]!.password!] : [];
  const deps = {
    env: envOf(user),
    io: { input: Readable.from(answers.map((a) => `${a}\n`)), output: new PassThrough() },
    print: (line: string) => lines.push(line),
  };
  addLoginCommands(program, deps);
  addRequestCommands(program, deps);
  await program.parseAsync(['node', 'postern', ...args]);
  return lines;
}

/** Plain OpenSSH through the proxy with the login's own key and certificate. */
async function sshAsLogin(user: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const profile = JSON.parse(
    await readFile(path.join(homeOf(user), '.postern', 'profile.json'), 'utf8'),
  );
  const config = path.join(homeOf(user), 'ssh_config');
  await writeFile(
    config,
    [
      'Host proxy',
      '  HostName 127.0.0.1',
      `  Port ${sshProxy.address.port}`,
      `  User ${user}`,
      'Host * !proxy',
      '  ProxyJump proxy',
      'Host *',
      `  IdentityFile ${profile.key_path}`,
      `  CertificateFile ${profile.cert_path}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${path.join(homeOf(user), '.postern', 'known_hosts')}`,
      '  GlobalKnownHostsFile /dev/null',
      '  StrictHostKeyChecking yes',
      '  BatchMode yes',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  );
  return new Promise((resolve) =>
    execFile(
      'ssh',
      ['-F', config, 'root@lab-1', 'echo reached'],
      { timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? Number((error as { code?: number }).code ?? 1) : 0,
          stdout,
          stderr,
        }),
    ),
  );
}

describe('postern request', () => {
  it('creates, reviews, assumes and drops an access request; ssh follows', async () => {
    await postern('alice', ['login', '--proxy', proxy, '--no-ssh-config']);
    expect((await sshAsLogin('alice')).code).not.toBe(0);

    const created = await postern('alice', [
      'request',
      'create',
      '--roles',
      'root-on-lab',
      '--reason',
      'patch the lab',
      '--duration',
      '1h',
    ]);
    const id = /^Request (\S+) is pending: root-on-lab\.$/.exec(created[0]!)?.[1];
    expect(id, created.join('\n')).toBeDefined();

    await postern('bob', ['login', '--proxy', proxy, '--no-ssh-config']);
    const toReview = await postern('bob', ['request', 'ls', '--review']);
    expect(toReview.join('\n')).toContain(id);
    await expect(postern('alice', ['request', 'review', id!, '--approve'])).rejects.toThrow(
      /you cannot review your own request/,
    );
    const reviewed = await postern('bob', [
      'request',
      'review',
      id!,
      '--approve',
      '--reason',
      'go',
    ]);
    expect(reviewed).toEqual([`Reviewed ${id}: it is now approved.`]);
    const shown = (await postern('alice', ['request', 'show', id!])).join('\n');
    expect(shown).toMatch(/State:\s+APPROVED/);
    expect(shown).toMatch(/Review:\s+bob approved "go"/);

    const assumed = await postern('alice', ['request', 'assume', id!]);
    expect(assumed[0]).toMatch(new RegExp(`^Assumed ${id}; your certificate is valid until `));
    const profile = JSON.parse(
      await readFile(path.join(homeOf('alice'), '.postern', 'profile.json'), 'utf8'),
    );
    const cert = parseCertificate((await readFile(profile.cert_path, 'utf8')).trim());
    expect(assumedRequestsOf(cert.extensions)).toEqual([id]);
    // No longer than the request's access (an hour), though the roles would allow 30h.
    expect(cert.validBefore.getTime() - Date.now()).toBeLessThanOrEqual(3_600_000 + 60_000);
    const reached = await sshAsLogin('alice');
    expect(reached.stdout, JSON.stringify(reached)).toContain('reached');

    await postern('alice', ['request', 'drop']);
    expect((await sshAsLogin('alice')).code).not.toBe(0);

    // login --request-id assumes it as part of signing in.
    const again = await postern('alice', [
      'login',
      '--proxy',
      proxy,
      '--no-ssh-config',
      '--request-id',
      id!,
    ]);
    expect(again.at(-1)).toMatch(new RegExp(`^Assumed access request ${id}`));
    expect((await sshAsLogin('alice')).stdout).toContain('reached');
  });

  it("refuses to assume someone else's request, and a pending one", async () => {
    await postern('bob', ['login', '--proxy', proxy, '--no-ssh-config']);
    await postern('alice', ['request', 'drop']);
    const created = await postern('alice', ['request', 'create', '--roles', 'root-on-lab']);
    const id = /^Request (\S+) is/.exec(created[0]!)![1]!;
    await expect(postern('alice', ['request', 'assume', id])).rejects.toThrow(/is pending/);
    await expect(postern('bob', ['request', 'assume', id])).rejects.toThrow(/not found/);
  });

  it('search lists what the search_as_roles reach, with the command that asks', async () => {
    await postern('carol', ['login', '--proxy', proxy, '--no-ssh-config']);
    const node = app.services.inventory.rows().find((row) => row.node.spec.hostname === 'lab-1')!;
    const lines = await postern('carol', ['request', 'search', '--kind', 'node']);
    expect(lines[0]).toMatch(/^NAME\s+LABELS$/);
    expect(lines[1]).toMatch(new RegExp(`^${node.node.metadata.name}\\s+lab-1\\s+env=lab$`));
    expect(lines.at(-1)).toBe(
      'Ask with: postern request create --resource node/NAME --reason "..."',
    );
    // Searched, not reached: the search is audited, and carol's own roles list nothing.
    const { events } = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 500,
    });
    expect(events).toContainEqual(
      expect.objectContaining({ code: 'T5004I', user: 'carol', resource_type: 'node' }),
    );
    expect(await postern('carol', ['request', 'search', '--kind', 'db'])).toEqual([
      'No db that you may request.',
    ]);
    await expect(postern('carol', ['request', 'search', '--kind', 'desk'])).rejects.toThrow(
      /--kind desk: one of node, app, db, kube_cluster/,
    );
  });
});
