import { execFile } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { CertAuthorityStore } from '../ca.store.js';
import { signCertificate } from '../certificates.js';
import { generateEd25519Key } from '../keys.js';
import { toOpenSshPrivateKey } from '../openssh-key-format.js';
import { nodeServiceFixture } from './node-service.testkit.js';

const { state, hostKey, userKey, lockedUsers, logs, certificate, trustHost, login } =
  nodeServiceFixture();
const strangerCa = generateEd25519Key();

describe('NodeService authentication', () => {
  it('refuses a certificate from another CA, without the login, expired, or with critical options', async () => {
    const foreign = signCertificate(strangerCa.privateKeyPem, {
      type: 'user',
      publicKey: userKey.publicKey,
      keyId: 'alice',
      principals: ['root'],
      validAfter: new Date(Date.now() - 60_000),
      validBefore: new Date(Date.now() + 60_000),
    });
    await expect(login(foreign)).rejects.toThrow(
      /refused the login as root: the certificate was not accepted$/,
    );
    await expect(login(certificate({ logins: ['alice'] }))).rejects.toThrow(
      /does not list principal root/,
    );
    await expect(login(certificate({ now: new Date(Date.now() - 86_400_000) }))).rejects.toThrow(
      /certificate expired at/,
    );
    const userCa = await new CertAuthorityStore(state.backend).get('user');
    const restricted = signCertificate(userCa?.spec.privateKeyPem ?? '', {
      type: 'user',
      publicKey: userKey.publicKey,
      keyId: 'alice',
      principals: ['root'],
      validAfter: new Date(Date.now() - 60_000),
      validBefore: new Date(Date.now() + 60_000),
      criticalOptions: { 'force-command': '/bin/true' },
    });
    await expect(login(restricted)).rejects.toThrow(/unsupported critical options: force-command/);
    expect(logs.join('\n')).toMatch(/ssh login refused .*not signed by a trusted CA/);
  });

  it('refuses locked users and roles with the lock message, and logins with no OS user', async () => {
    lockedUsers.set('mallory', 'stolen laptop');
    lockedUsers.set('role:intern', 'interns are paused');
    try {
      await expect(login(certificate({ user: 'mallory' }))).rejects.toThrow(
        /refused the login as root: locked: stolen laptop/,
      );
      await expect(login(certificate({ roles: ['intern'] }))).rejects.toThrow(
        /locked: interns are paused/,
      );
    } finally {
      lockedUsers.clear();
    }
    const nobodyHere = certificate({ logins: ['no-such-user-xyz'] });
    await expect(login(nobodyHere, { user: 'no-such-user-xyz' })).rejects.toThrow(
      /no OS user no-such-user-xyz/,
    );
  });

  it('refuses plain public keys and passwords', async () => {
    const plainKey = toOpenSshPrivateKey(createPrivateKey(userKey.privateKeyPem));
    await expect(rawLogin({ privateKey: plainKey })).rejects.toThrow(
      /authentication methods failed/,
    );
    await expect(rawLogin({ password: 'hunter2' })).rejects.toThrow(
      /authentication methods failed/,
    );
    expect(logs.join('\n')).toMatch(/not a certificate \(ssh-ed25519\)/);
    expect(logs.join('\n')).toMatch(/method password is not allowed/);
  });
});

describe('NodeService with OpenSSH clients', () => {
  it('lets ssh log in with a certificate (check query, then signature) and tells it why when locked', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'postern-ssh-client-'));
    try {
      const keyFile = path.join(dir, 'id');
      await writeFile(keyFile, toOpenSshPrivateKey(createPrivateKey(userKey.privateKeyPem)), {
        mode: 0o600,
      });
      await writeFile(`${keyFile}-cert.pub`, `${certificate({ user: 'carol' })}\n`);
      const knownHosts = path.join(dir, 'known_hosts');
      await writeFile(knownHosts, `[127.0.0.1]:${state.port} ${hostKey.publicKey}\n`);
      const ssh = (command: string) =>
        promisify(execFile)('ssh', [
          ...['-F', '/dev/null', '-i', keyFile, '-p', String(state.port)],
          ...['-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes'],
          ...['-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null'],
          ...['root@127.0.0.1', command],
        ]);
      expect((await ssh('echo from-openssh')).stdout).toBe('from-openssh\n');
      lockedUsers.set('carol', 'under investigation');
      const refused = await ssh('true').catch((error: { stderr: string }) => error);
      expect(refused.stderr).toMatch(/Postern: locked: under investigation/);
      expect(refused.stderr).toMatch(/Permission denied \(publickey\)/);
    } finally {
      lockedUsers.clear();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

/** An ssh2 client with ordinary credentials, which must never get in. */
function rawLogin(credentials: { privateKey?: string; password?: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    const client = new Client();
    client.once('ready', () => {
      client.end();
      resolve();
    });
    client.once('error', reject);
    client.connect({
      host: '127.0.0.1',
      port: state.port,
      username: 'root',
      hostVerifier: trustHost,
      ...credentials,
    });
  });
}
