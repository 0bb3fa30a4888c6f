import { apiPaths, type SessionMfaTarget } from '@postern/contracts';
import type { ChildProcess } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import * as postern from '../../cli/login/ssh-commands.js';
import { parseCertificate } from '../../ssh/certificates.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { ED25519, formatPublicKey } from '../../ssh/keys.js';
import type { TestApp } from '../../testing/app-harness.testkit.js';
import { inviteUser, nextTotp } from '../../testing/identity.testkit.js';
import type { OpenSshClientSetup } from '../../testing/openssh-client.testkit.js';
import { createRole, createSessionMfaRole } from '../../testing/roles.testkit.js';
import { signedHeaders } from '../../testing/signed-request.testkit.js';
import type { TerminalFixture } from '../../testing/terminal-fixture.testkit.js';
import { startRootAndLeaf, type RootAndLeaf } from './ssh-through-root.testkit.js';

/**
 * require_session_mfa for a root user on a leaf's server, with the real ssh through both SSH
 * proxies: the root asks the leaf whether its roles want the check, checks the code against the
 * user's devices (the root's), and issues a one-minute certificate naming the server as reached,
 * which the leaf honours for that name only (docs/trusted-clusters.md).
 */
describe('per-session MFA on a leaf server through the root (require_session_mfa)', () => {
  let world: RootAndLeaf;
  let root: TestApp;
  let leaf: TerminalFixture;
  const ssh = (client: OpenSshClientSetup, target: string, command: string, options?: string[]) =>
    world.ssh(client, target, command, options);
  const leafEvents = () => world.leafEvents();
  /** A root user with an authenticator app, and their ssh client. */
  interface Checked {
    name: string;
    totp: string;
    client: OpenSshClientSetup;
  }
  let mona: Checked;
  const children: ChildProcess[] = [];
  const homes: string[] = [];
  let rita: Checked;
  const checkedUser = async (name: string, rootRole: string): Promise<Checked> => {
    const { totpSecret } = await inviteUser(root, name, { roles: [rootRole] });
    return { name, totp: totpSecret!, client: await world.clientOf(name, [rootRole]) };
  };
  /** `POST mfa/session/certs` on the root, signed with the user's login, for their key. */
  const askRoot = async (user: Checked, target: string | SessionMfaTarget, totpCode?: string) => {
    const loginCert = await readFile(`${user.client.dir}/id_ed25519-cert.pub`, 'utf8');
    const blob = parseCertificate(Buffer.from(loginCert.split(/\s+/)[1]!, 'base64'));
    const body = JSON.stringify({
      targets: [typeof target === 'string' ? { node: target, login: 'root' } : target],
      pub_key: formatPublicKey(ED25519, blob.publicKeyBlob),
      ...(totpCode ? { totp_code: totpCode } : {}),
    });
    const path = apiPaths.sessionMfaCerts;
    return root.server.inject({
      method: 'POST',
      url: path,
      payload: body,
      headers: {
        'content-type': 'application/json',
        ...signedHeaders(root, user.name, { method: 'POST', path, body }),
      },
    });
  };
  /** ssh to the leaf's server with a per-session certificate, as `postern ssh` runs it. */
  const sshWith = async (user: Checked, cert: string, command: string) => {
    const file = path.join(user.client.dir, 'session-cert.pub');
    await writeFile(file, `${cert}\n`);
    return ssh(user.client, 'root@test-host.leaf', command, ['-o', `CertificateFile=${file}`]);
  };
  /**
   * The user's next authenticator code (each works once): the root's clock moves a step, and
   * the leaf's with it, so the leaf does not take the root's certificates as not yet valid.
   */
  const nextCode = (user: Checked) => {
    leaf.app.clock.advance(30_000);
    return nextTotp(root, user.totp);
  };

  beforeAll(async () => {
    world = await startRootAndLeaf(
      (leafRole) =>
        `[{remote: access, local: [${leafRole}]}, {remote: leaf-checked, local: [${leafRole}, checked, watcher]}, {remote: root-checked, local: [${leafRole}]}]`,
    );
    ({ root, leaf } = world);
    // leaf-checked asks for nothing on the root and reaches no server there (its logins go
    // into the certificate); the leaf maps it to a role that reaches its servers and one that
    // asks for the check. root-checked asks on the root, and maps to the first alone.
    const reach = { logins: ['root'], node_labels: { place: 'the-leaf' } };
    await createRole(root, 'leaf-checked', { allow: reach });
    await createRole(root, 'root-checked', {
      allow: reach,
      options: { require_session_mfa: true },
    });
    await createSessionMfaRole(leaf.app, 'checked');
    const watch = { name: 'watch', roles: [leaf.role], kinds: ['ssh'], modes: ['observer'] };
    await createRole(leaf.app, 'watcher', { allow: { join_sessions: [watch] } });
    mona = await checkedUser('mona', 'leaf-checked');
    rita = await checkedUser('rita', 'root-checked');
  });

  afterAll(async () => {
    for (const child of children) child.kill();
    await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
    await world?.stop();
  });

  it('refuses plain ssh to the leaf server without the check, saying why', async () => {
    const result = await ssh(mona.client, 'root@test-host.leaf', 'echo ran');
    expect(result.code).toBe(255);
    expect(result.stdout).not.toContain('ran');
    expect(result.stderr).toContain('require_session_mfa');
  });

  it("asks the leaf whether its roles want the check: yes for mona's, no for alice's", async () => {
    const alice = { ...mona, name: 'alice' };
    await world.clientOf('alice', ['access']);
    const monaAsks = await askRoot(mona, 'test-host.leaf');
    expect([monaAsks.statusCode, monaAsks.json()]).toEqual([200, { required: true }]);
    const aliceAsks = await askRoot(alice, 'test-host.leaf');
    expect([aliceAsks.statusCode, aliceAsks.json()]).toEqual([200, { required: false }]);
  });

  it("the root's certificate after a code opens that server on the leaf, and no other", async () => {
    const issued = await askRoot(mona, 'Test-Host.leaf', nextCode(mona));
    expect(issued.statusCode).toBe(200);
    const result = await sshWith(mona, issued.json().cert as string, 'echo checked-$((6*7))');
    expect(result.stderr).not.toMatch(/denied|require_session_mfa/i);
    expect(result.stdout).toContain('checked-42');
    await eventually(
      async () =>
        (await leafEvents()).some(
          (e) => e.code === 'T2000I' && e.user === 'mona' && e.server_id === leaf.nodeId,
        ),
      20_000,
      "mona's session on the leaf",
    );
    // A certificate the root issued for another name on the leaf does not open this one.
    const other = await askRoot(mona, 'web-9.leaf', nextCode(mona));
    expect(other.statusCode).toBe(200);
    const refused = await sshWith(mona, other.json().cert as string, 'echo ran');
    expect(refused.stdout).not.toContain('ran');
    expect(refused.stderr).toContain('require_session_mfa');
  });

  it("the root's own rule goes with the user: the leaf asks too, though its roles do not", async () => {
    const plain = await ssh(rita.client, 'root@test-host.leaf', 'echo ran');
    expect(plain.stdout).not.toContain('ran');
    expect(plain.stderr).toContain(
      'your roles on root require an MFA check for each session (require_session_mfa)',
    );
    const issued = await askRoot(rita, 'test-host.leaf', nextCode(rita));
    expect(issued.statusCode).toBe(200);
    const result = await sshWith(rita, issued.json().cert as string, 'echo rita-$((6*7))');
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('rita-42');
  });

  it("the root's rule holds for joining a leaf's session too", async () => {
    const sid = '00000000-0000-4000-8000-000000000000';
    const result = await ssh(rita.client, '_proxy.leaf', `join ${sid}`, ['-tt', '-l', 'rita']);
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain(
      'your roles on root require an MFA check for each session (require_session_mfa), which this client cannot ask for yet; postern join asks for it',
    );
  });

  it("a leaf role's check for joining: postern join --cluster asks the root, which asks the leaf", async () => {
    const alice = await world.clientOf('alice', ['access']);
    const before = new Set(leaf.app.services.hub.list().map((t) => t.id));
    const owner = alice.spawn('ssh', ['-tt', 'root@test-host.leaf']);
    children.push(owner);
    await eventually(
      () => leaf.app.services.hub.list().some((t) => !before.has(t.id) && t.owner === 'alice'),
      15_000,
      "alice's session",
    );
    const sid = leaf.app.services.hub.list().find((t) => !before.has(t.id))!.id;
    const joinArgs = ['-tt', '-l', 'mona', '_proxy.leaf', `join ${sid}`];
    // Without the check the leaf refuses the join, saying why.
    const plain = await mona.client.run('ssh', ['-o', 'LogLevel=INFO', ...joinArgs]);
    expect(plain.stdout + plain.stderr).toContain('require_session_mfa');

    // postern join --cluster names the leaf: the root asks it, and a code buys a certificate.
    const { home } = await signedInHome(root, world.rootPort, 'mona', ['leaf-checked']);
    homes.push(home);
    let ran: string[] = [];
    const recordArgs = (_program: string, args: string[]) => ((ran = args), Promise.resolve(0));
    const ask = () => Promise.resolve(nextCode(mona));
    await postern.join({ POSTERN_HOME: home }, sid, undefined, recordArgs, ask, 'leaf');
    expect(ran).toEqual(expect.arrayContaining([expect.stringMatching(/^CertificateFile=/)]));

    const unknown = await askRoot(mona, { kind: 'join', name: sid, cluster: 'nowhere' });
    expect([unknown.statusCode, unknown.json().error.message]).toEqual([
      404,
      'nowhere is not a cluster this proxy trusts',
    ]);
    // Such a certificate (here for mona's ssh key) opens the join on the leaf.
    const target = { kind: 'join' as const, name: sid, cluster: 'leaf' };
    const issued = await askRoot(mona, target, nextCode(mona));
    expect(issued.statusCode).toBe(200);
    const file = path.join(mona.client.dir, 'join-cert.pub');
    await writeFile(file, `${issued.json().cert as string}\n`);
    const watcher = mona.client.spawn('ssh', ['-o', `CertificateFile=${file}`, ...joinArgs]);
    children.push(watcher);
    let seen = '';
    watcher.stderr.on('data', (d: Buffer) => (seen += d.toString()));
    watcher.stdout.on('data', (d: Buffer) => (seen += d.toString()));
    await eventually(() => seen.includes(`joined session ${sid} as observer`), 15_000, 'the join');
  });
});
