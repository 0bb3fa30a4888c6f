import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { inviteUser } from '../../testing/identity.testkit.js';
import { createOpsRole, requestCertificate } from '../../testing/ssh-login.testkit.js';
import { startSshd, type RunningSshd } from '../../testing/sshd.testkit.js';
import { ed25519PrivateKeyObject, generateEd25519Key } from '../../ssh/keys.js';
import { toOpenSshPrivateKey } from '../../ssh/openssh-key-format.js';

let app: TestApp;
let sshd: RunningSshd;
let dir: string;

beforeAll(async () => {
  app = await createTestApp();
  dir = await mkdtemp(path.join(tmpdir(), 'postern-ssh-client-'));
  await createOpsRole(app);
  sshd = await startSshd({
    trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine(),
    hostCertificate: (publicKey) =>
      app.services.ca.issueHostCertificate({
        publicKey,
        principals: ['127.0.0.1'],
        ttlMs: 3_600_000,
        hostId: 'sshd-host',
      }),
  });
}, 30_000);

afterAll(async () => {
  await sshd?.stop();
  await app?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a certificate from ssh/certs', () => {
  it('logs the real OpenSSH client in to an sshd that trusts the user CA', async () => {
    const alice = await inviteUser(app, 'alice', { roles: ['ops'] });
    const key = generateEd25519Key();
    const res = await requestCertificate(app, alice, key.publicKey);
    expect(res.statusCode, res.body).toBe(200);
    const { cert, host_signers } = res.json() as { cert: string; host_signers: string[] };
    const file = (name: string) => path.join(dir, name);
    const privateKey = toOpenSshPrivateKey(ed25519PrivateKeyObject(key.privateKeyPem));
    await writeFile(file('id'), privateKey, { mode: 0o600 });
    await writeFile(file('id-cert.pub'), `${cert}\n`);
    // The host is checked through the host CA line the response carried, nothing else.
    await writeFile(file('known_hosts'), `${host_signers.join('\n')}\n`);
    const { stdout } = await promisify(execFile)('ssh', [
      ...['-F', 'none', '-p', String(sshd.port), '-i', file('id')],
      ...['-o', `CertificateFile=${file('id-cert.pub')}`],
      ...['-o', `UserKnownHostsFile=${file('known_hosts')}`, '-o', 'StrictHostKeyChecking=yes'],
      ...['-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes'],
      'root@127.0.0.1',
      'echo logged-in-as-$(id -un)',
    ]);
    expect(stdout.trim(), sshd.output()).toBe('logged-in-as-root');
  });
});
