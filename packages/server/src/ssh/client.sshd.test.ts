import { execFile } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBackend, type Backend } from '../backend/index.js';
import { startSshd, type RunningSshd } from '../testing/sshd.testkit.js';
import { ClusterCa } from './ca.service.js';
import { collect, readUntil, runCommand } from './channel.testkit.js';
import { connectToNode, openShell } from './client.js';
import { generateEd25519Key, parsePublicKey } from './keys.js';
import { toOpenSshPrivateKey } from './openssh-key-format.js';

let backend: Backend;
let ca: ClusterCa;
let sshd: RunningSshd;
const userKey = generateEd25519Key();

beforeAll(async () => {
  backend = await openBackend({ type: 'memory' });
  ca = await ClusterCa.loadOrCreate(backend, 'test-cluster');
  sshd = await startSshd({
    trustedUserCaKeys: ca.trustedUserCaKeysLine(),
    hostCertificate: (publicKey) =>
      ca.issueHostCertificate({
        publicKey,
        principals: ['127.0.0.1'],
        ttlMs: 3600_000,
        hostId: 'node-1',
      }),
  });
});

afterAll(async () => {
  await sshd?.stop();
  await backend?.close();
});

const certificateFor = (logins: string[], extra: { ttlMs?: number; now?: Date } = {}) =>
  ca.issueUserCertificate({
    user: 'alice',
    roles: ['access'],
    logins,
    publicKey: userKey.publicKey,
    ttlMs: extra.ttlMs ?? 60_000,
    ...(extra.now ? { now: extra.now } : {}),
  });

const connect = (
  certificate: string,
  verifyHostKey = (blob: Buffer) => blob.equals(parsePublicKey(sshd.hostPublicKey).blob),
) =>
  connectToNode({
    host: sshd.host,
    port: sshd.port,
    login: 'root',
    key: { privateKeyPem: userKey.privateKeyPem, certificate },
    verifyHostKey,
  });

describe('ssh client → OpenSSH sshd with a ClusterCa certificate', () => {
  it('logs in as root, runs a command and gets a PTY shell', async () => {
    const client = await connect(certificateFor(['root']));
    try {
      expect(await runCommand(client, 'echo hello; exit 3')).toEqual({
        stdout: 'hello\n',
        stderr: '',
        code: 3,
      });
      const shell = await openShell(client, { cols: 100, rows: 30, term: 'xterm-256color' });
      const output = collect(shell);
      shell.write('tty; stty size; exit\n');
      const { stdout } = await output;
      expect(stdout).toMatch(/\/dev\/pts\/\d+/);
      expect(stdout).toMatch(/30 100/);
      expect(sshd.output()).toMatch(
        /Accepted publickey for root .* ED25519-CERT SHA256:\S+ ID alice/,
      );
    } finally {
      client.end();
    }
  });

  it('refuses a certificate without the login, an expired one, and a host key we do not trust', async () => {
    await expect(connect(certificateFor(['alice']))).rejects.toThrow(
      /refused the login as root: the certificate was not accepted/,
    );
    const yesterday = new Date(Date.now() - 86_400_000);
    await expect(connect(certificateFor(['root'], { now: yesterday }))).rejects.toThrow(
      /refused the login as root/,
    );
    expect(sshd.output()).toMatch(/name is not a listed principal/);
    expect(sshd.output()).toMatch(/Certificate invalid: expired/);
    const otherKey = generateEd25519Key();
    await expect(
      connectToNode({
        host: sshd.host,
        port: sshd.port,
        login: 'root',
        key: { privateKeyPem: otherKey.privateKeyPem, certificate: certificateFor(['root']) },
        verifyHostKey: () => true,
      }),
    ).rejects.toThrow(/issued for another key/);
    await expect(connect(certificateFor(['root']), () => false)).rejects.toThrow(
      /^refused the host key of 127\.0\.0\.1:\d+ \(SHA256:/,
    );
  });

  it('lets OpenSSH ssh log in with our key file and certificate, trusting the host CA', async () => {
    const dir = sshd.configDir;
    const keyFile = path.join(dir, 'user_key');
    await writeFile(keyFile, toOpenSshPrivateKey(createPrivateKey(userKey.privateKeyPem)), {
      mode: 0o600,
    });
    await writeFile(`${keyFile}-cert.pub`, certificateFor(['root']) + '\n');
    await writeFile(path.join(dir, 'known_hosts'), ca.knownHostsLine() + '\n');
    const { stdout } = await promisify(execFile)('ssh', [
      '-F',
      '/dev/null',
      '-i',
      keyFile,
      '-o',
      'IdentitiesOnly=yes',
      '-o',
      'BatchMode=yes',
      '-o',
      'StrictHostKeyChecking=yes',
      '-o',
      `UserKnownHostsFile=${path.join(dir, 'known_hosts')}`,
      '-o',
      'GlobalKnownHostsFile=/dev/null',
      '-p',
      String(sshd.port),
      'root@127.0.0.1',
      'echo via-openssh',
    ]);
    expect(stdout).toBe('via-openssh\n');
  });

  it('reads a shell prompt interactively', async () => {
    const client = await connect(certificateFor(['root']));
    try {
      const shell = await openShell(client, { cols: 80, rows: 24, term: 'xterm' });
      shell.write('echo marker-$((6*7))\n');
      await readUntil(shell, /marker-42/);
      shell.end('exit\n');
    } finally {
      client.end();
    }
  });
});
