import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { apiPaths } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { openSshClient, type OpenSshClientSetup } from '../../../testing/openssh-client.testkit.js';
import { startTestSshProxy } from '../../../testing/ssh-proxy.testkit.js';
import { startSshd } from '../../../testing/sshd.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { parseRoleYaml } from '../../../access-control/rbac/role.yaml.js';
import { CertIssuer } from '../../../identity/cli-login/cert-issuer.js';
import { parseCertificate } from '../../../ssh/certificates.js';
import { generateEd25519Key } from '../../../ssh/keys.js';
import { signRequest } from '../../../ssh/signed-request.js';
import { POSTERN_SOURCE_IP_EXTENSION } from '../../../ssh/ca.service.js';

// Role options that restrict access, each enforced where the reference system enforces it:
// stock OpenSSH clients through the SSH proxy to a real sshd, the console's file transfer, the
// user certificates `postern login` gets and the calls signed with them. docs/rbac.md.
let app: TestApp;
let sshd: Awaited<ReturnType<typeof startSshd>>;
let proxy: Awaited<ReturnType<typeof startTestSshProxy>>;
const admin = hostActor('test');
const clients: OpenSshClientSetup[] = [];

const role = (name: string, options: object) =>
  app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name },
      spec: { options, allow: { node_labels: { env: 'test' }, logins: ['root'] } },
    }),
    admin,
  );

/** A user with a record holding these roles, and the stock client with a certificate for them. */
async function userWith(
  name: string,
  roles: string[],
  extra: { ttlMs?: number; sourceIp?: string } = {},
) {
  await app.services.users.create({ name, roles }, 'test');
  const client = await openSshClient({
    ca: app.services.ca,
    user: name,
    roles,
    logins: ['root'],
    proxyPort: proxy.port,
    ...extra,
  });
  clients.push(client);
  return client;
}

const events = async () =>
  (await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 5000 }))
    .events;

beforeAll(async () => {
  app = await createTestApp();
  sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  await app.services.inventory.addOpenSsh(
    { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'test' } },
    admin,
  );
  await role('plain', {});
  await role('no-copy', { ssh_file_copy: false });
  await role('cut-at-expiry', { disconnect_expired_cert: true });
  await role('one-session', { max_sessions: 1 });
  await role('pinned', { pin_source_ip: true });
  await role('checked', { require_session_mfa: true });
  await role('extended', {
    cert_extensions: [{ type: 'ssh', mode: 'extension', name: 'login@example.com', value: 'x' }],
  });
  proxy = await startTestSshProxy(app);
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.remove();
  await proxy?.stop();
  await sshd?.stop();
  await app?.close();
});

describe('ssh_file_copy: false', () => {
  it('refuses scp and sftp through the proxy, and leaves plain commands alone', async () => {
    const nocopy = await userWith('nocopy', ['plain', 'no-copy']);
    const plain = await userWith('copier', ['plain']);
    const scpArgs = ['-O', `root@sshd-host:/etc/hostname`, path.join(nocopy.dir, 'copied')];
    const scp = await nocopy.run('scp', scpArgs);
    expect(scp.code).not.toBe(0);
    expect(scp.stderr).toContain(
      'file copying is not allowed by your roles (ssh_file_copy: false)',
    );
    expect(existsSync(path.join(nocopy.dir, 'copied'))).toBe(false);
    const sftp = await nocopy.run('sftp', ['-b', '-', 'root@sshd-host'], 'ls /\n');
    expect(sftp.code).not.toBe(0);
    expect(sftp.stderr).toContain('ssh_file_copy: false');
    // A command still runs; the strictest role wins only for copying.
    expect(await nocopy.run('ssh', ['root@sshd-host', 'echo ok'])).toMatchObject({
      code: 0,
      stdout: 'ok\n',
    });
    // Someone whose roles allow copying copies as before.
    const allowed = await plain.run('scp', [
      '-O',
      'root@sshd-host:/etc/hostname',
      path.join(plain.dir, 'h'),
    ]);
    expect(allowed.code, allowed.stderr).toBe(0);
    const refused = (await events()).filter((e) => e.code === 'T1006W' && e.user === 'nocopy');
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(refused[0]!.reason).toContain('ssh_file_copy');
  });

  it("refuses the console's file transfer too", async () => {
    const headers = await app.signIn(['plain', 'no-copy'], 'webcopy');
    const res = await app.server.inject({
      url: `${apiPaths.fileTransfer('-current-', 'sshd-host', 'root')}?location=/etc/hostname`,
      headers,
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toContain('ssh_file_copy: false');
    const audited = (await events()).find((e) => e.code === 'T3004E' && e.user === 'webcopy');
    expect(audited?.error).toContain('ssh_file_copy');
  });
});

describe('require_session_mfa', () => {
  it('refuses plain ssh through the proxy, which cannot ask for the check, saying where to go', async () => {
    const client = await userWith('checked', ['plain', 'checked']);
    // The refusal comes as an auth banner, which ssh shows from LogLevel INFO.
    const result = await client.run('ssh', ['-o', 'LogLevel=INFO', 'root@sshd-host', 'echo ran']);
    expect(result.code).not.toBe(0);
    expect(result.stdout).not.toContain('ran');
    expect(result.stderr).toContain('require an MFA check for each session (require_session_mfa)');
    const refused = (await events()).filter((e) => e.code === 'T1006W' && e.user === 'checked');
    expect(refused[0]?.reason).toContain('require_session_mfa');
  });

  it("refuses the console's file transfer until the web session passed a check (mfa_required)", async () => {
    const headers = await app.signIn(['plain', 'checked'], 'webchecked');
    const res = await app.server.inject({
      url: `${apiPaths.fileTransfer('-current-', 'sshd-host', 'root')}?location=/etc/hostname`,
      headers,
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.code).toBe('mfa_required');
    expect(res.json().error.message).toContain('require_session_mfa');
  });
});

describe('disconnect_expired_cert', () => {
  const ttlMs = 4_000;

  it('ends an ssh session when its certificate expires', async () => {
    const client = await userWith('cutter', ['plain', 'cut-at-expiry'], { ttlMs });
    const started = Date.now();
    const result = await client.run('ssh', [
      'root@sshd-host',
      'echo started; sleep 25; echo survived',
    ]);
    expect(result.stdout).toBe('started\n');
    expect(result.code).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('without it, an open session outlives the certificate', async () => {
    const client = await userWith('keeper', ['plain'], { ttlMs });
    const result = await client.run('ssh', [
      'root@sshd-host',
      `sleep ${ttlMs / 1000 + 2}; echo survived`,
    ]);
    expect(result).toMatchObject({ code: 0, stdout: 'survived\n' });
  });
});

describe('max_sessions', () => {
  it('refuses a second session on one client connection', async () => {
    const client = await userWith('single', ['plain', 'one-session']);
    const socket = path.join(client.dir, 'mux');
    const master = client.spawn('ssh', [
      '-M',
      '-S',
      socket,
      'root@sshd-host',
      'echo started; sleep 30',
    ]);
    const exited = once(master, 'exit');
    let out = '';
    master.stdout.on('data', (data: Buffer) => (out += data.toString()));
    await vi.waitFor(() => expect(out).toContain('started'), { timeout: 15_000 });
    const second = await client.run('ssh', ['-S', socket, 'root@sshd-host', 'echo second']);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain('too many sessions on this connection: max_sessions allows 1');
    const refused = (await events()).find((e) => e.code === 'T1006W' && e.user === 'single');
    expect(refused?.reason).toContain('max_sessions');
    master.kill();
    await exited;
    await rm(socket, { force: true });
  });
});

describe('pin_source_ip', () => {
  it('refuses a certificate pinned to another address, and an unpinned one', async () => {
    const elsewhere = await userWith('pinned1', ['plain', 'pinned'], { sourceIp: '10.9.9.9' });
    // The refusal's reason is a banner, which OpenSSH prints at LogLevel INFO: asked of the
    // proxy itself (a jump's own ssh keeps the config's ERROR).
    const atProxy = (client: OpenSshClientSetup) =>
      client.run('ssh', ['-o', 'LogLevel=INFO', 'proxy', 'true']);
    expect((await elsewhere.run('ssh', ['root@sshd-host', 'echo in'])).code).not.toBe(0);
    const refused = await atProxy(elsewhere);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('pinned to 10.9.9.9');
    const here = await openSshClient({
      ca: app.services.ca,
      user: 'pinned1',
      roles: ['plain', 'pinned'],
      logins: ['root'],
      proxyPort: proxy.port,
      sourceIp: '127.0.0.1',
    });
    clients.push(here);
    expect(await here.run('ssh', ['root@sshd-host', 'echo in'])).toMatchObject({
      code: 0,
      stdout: 'in\n',
    });
    const unpinned = await openSshClient({
      ca: app.services.ca,
      user: 'pinned1',
      roles: ['plain', 'pinned'],
      logins: ['root'],
      proxyPort: proxy.port,
    });
    clients.push(unpinned);
    expect((await unpinned.run('ssh', ['root@sshd-host', 'echo in'])).code).not.toBe(0);
    const noPin = await atProxy(unpinned);
    expect(noPin.code).not.toBe(0);
    expect(noPin.stderr).toContain('pin_source_ip');
  });

  it('pins the certificates postern login gets, and signed requests from elsewhere are refused', async () => {
    const issuer = new CertIssuer({
      ca: app.services.ca,
      access: app.services.access,
      locks: app.services.lockWatcher,
      audit: app.audit,
      sshProxyAddr: () => '127.0.0.1:3023',
      now: () => app.clock.now(),
    });
    const key = generateEd25519Key();
    const issued = await issuer.issue({
      user: 'pinned1',
      roles: ['plain', 'pinned', 'extended'],
      publicKey: key.publicKey,
      requestedTtlMs: 600_000,
      addr: '::ffff:127.0.0.1',
    });
    const cert = parseCertificate(issued.cert);
    expect(cert.extensions[POSTERN_SOURCE_IP_EXTENSION]).toBe('127.0.0.1');
    expect(Object.keys(cert.criticalOptions)).toEqual([]);
    const call = (remoteAddress: string) => {
      const url = '/v1/webapi/ssh/nodes?limit=10';
      return app.server.inject({
        url,
        remoteAddress,
        headers: signRequest({
          method: 'GET',
          pathAndQuery: url,
          certificateLine: issued.cert,
          privateKeyPem: key.privateKeyPem,
          now: app.clock.now(),
        }),
      });
    };
    expect((await call('127.0.0.1')).statusCode).toBe(200);
    const other = await call('10.1.2.3');
    expect(other.statusCode).toBe(401);
    expect(other.json().error.message).toContain('pinned to 127.0.0.1');
  });
});

describe('cert_extensions', () => {
  it('adds ssh extensions to issued user certificates', async () => {
    await app.services.users.create({ name: 'ext', roles: ['plain', 'extended'] }, 'test');
    const issuer = new CertIssuer({
      ca: app.services.ca,
      access: app.services.access,
      locks: app.services.lockWatcher,
      audit: app.audit,
      sshProxyAddr: () => '127.0.0.1:3023',
      now: () => app.clock.now(),
    });
    const issued = await issuer.issue({
      user: 'ext',
      roles: ['plain', 'extended'],
      publicKey: generateEd25519Key().publicKey,
      requestedTtlMs: 600_000,
      addr: '127.0.0.1',
    });
    expect(parseCertificate(issued.cert).extensions).toMatchObject({
      'login@example.com': 'x',
      'permit-pty': '',
    });
  });

  it('refuses other types and modes, and names Postern sets itself, with the line', () => {
    const refused = (options: string) => {
      try {
        parseRoleYaml(
          `kind: role\nversion: v7\nmetadata:\n  name: r\nspec:\n  options:\n${options}`,
        );
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('expected a refusal');
    };
    expect(
      refused('    cert_extensions:\n    - {type: x509, mode: extension, name: a, value: b}\n'),
    ).toMatch(/line 8: .*cert_extensions.*only type 'ssh' is supported/);
    expect(
      refused(
        '    cert_extensions:\n    - {type: ssh, mode: critical_option, name: a, value: b}\n',
      ),
    ).toMatch(/line 8: .*only mode 'extension' is supported/);
    expect(
      refused(
        '    cert_extensions:\n    - {type: ssh, mode: extension, name: permit-pty, value: ""}\n',
      ),
    ).toMatch(/Postern sets this extension itself/);
  });
});

describe('device_trust_mode and the other options', () => {
  const parse = (options: string) =>
    parseRoleYaml(`kind: role\nversion: v7\nmetadata:\n  name: r\nspec:\n  options:\n${options}`);
  it("accepts 'off' and refuses the rest: device trust is not supported", () => {
    expect(parse('    device_trust_mode: "off"\n').role.spec.options.device_trust_mode).toBe('off');
    expect(() => parse('    device_trust_mode: required\n')).toThrow(
      /line 7: .*device trust is not supported/,
    );
  });
  it('reads every enforced option', () => {
    const { role } = parse(
      [
        '    ssh_file_copy: false',
        '    disconnect_expired_cert: true',
        '    pin_source_ip: true',
        '    max_connections: 3',
        '    max_sessions: 2',
        '    max_kubernetes_connections: 1',
        '    lock: strict',
        '    record_session: {default: best_effort, ssh: strict, k8s: strict, desktop: true}',
        '',
      ].join('\n'),
    );
    expect(role.spec.options).toMatchObject({ max_connections: 3, lock: 'strict' });
    expect(() => parse('    max_sessions: -1\n')).toThrow(/line 7: .*0 means no limit/);
    expect(() => parse('    lock: sometimes\n')).toThrow(/line 7: .*'best_effort' or 'strict'/);
  });
});
