import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { SFTPWrapper } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSftp } from '../client.js';
import { NodeService } from './index.js';
import { nodeServiceFixture } from './node-service.testkit.js';
import { findSftpServer } from './sftp-server.js';

const { state, hostKey, lockedUsers, logs, certificate, login, withClient } = nodeServiceFixture();

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-sftp-'));
  // World-writable, so that a login other than root can write into it.
  await chmod(dir, 0o777);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sftpCall = <T>(sftp: SFTPWrapper, name: 'realpath' | 'readdir', arg: string) =>
  promisify(sftp[name].bind(sftp) as (a: string, cb: (e: unknown, r: T) => void) => void)(arg);

describe('the node service sftp subsystem', () => {
  it('finds OpenSSH sftp-server on this host', () => {
    expect(findSftpServer()).toMatch(/\/sftp-server$/);
    expect(findSftpServer('/nonexistent/sftp-server')).toBeUndefined();
  });

  it('writes and reads files as the login, starting in its home directory', async () => {
    await withClient(async (client) => {
      const sftp = await openSftp(client);
      expect(await sftpCall<string>(sftp, 'realpath', '.')).toBe('/root');
      const payload = randomBytes(3 * 1024 * 1024 + 17);
      const target = path.join(dir, 'as-root.bin');
      await promisify(sftp.writeFile.bind(sftp))(target, payload);
      expect((await readFile(target)).equals(payload)).toBe(true);
      const back = await promisify(sftp.readFile.bind(sftp))(target);
      expect(Buffer.from(back).equals(payload)).toBe(true);
      sftp.end();
    });
    expect(logs.some((line) => line.startsWith('ssh subsystem sftp started'))).toBe(true);
  });

  it('runs sftp-server as the OS user, so the OS decides what it may touch', async () => {
    const client = await login(certificate({ logins: ['nobody'] }), { user: 'nobody' });
    try {
      const sftp = await openSftp(client);
      const target = path.join(dir, 'as-nobody.txt');
      await promisify(sftp.writeFile.bind(sftp))(target, 'hello');
      expect((await stat(target)).uid).toBe(65534);
      const secret = path.join(dir, 'root-only.txt');
      await writeFile(secret, 'secret', { mode: 0o600 });
      await expect(promisify(sftp.readFile.bind(sftp))(secret)).rejects.toThrow(
        /Permission denied/,
      );
      sftp.end();
    } finally {
      client.end();
    }
  });

  it('refuses other subsystems, and sftp while the user is locked', async () => {
    await withClient(async (client) => {
      await expect(
        new Promise((resolve, reject) =>
          client.subsys('netconf', (error, channel) => (error ? reject(error) : resolve(channel))),
        ),
      ).rejects.toThrow();
    });
    // Locked after login: the check at the subsystem request still stops it.
    await withClient(async (client) => {
      lockedUsers.set('alice', 'incident 7');
      try {
        await expect(openSftp(client)).rejects.toThrow();
      } finally {
        lockedUsers.delete('alice');
      }
    });
  });

  it('refuses sftp with a clear log line when no sftp-server is installed', async () => {
    const lines: string[] = [];
    const bare = new NodeService({
      hostKeyPem: hostKey.privateKeyPem,
      userCaPublicKeys: () => [state.ca.userCaPublicKey],
      sftpServer: '/nonexistent/sftp-server',
      log: (msg) => lines.push(msg),
    });
    const { port } = await bare.listen('127.0.0.1', 0);
    const client = await login(certificate(), { port });
    try {
      await expect(openSftp(client)).rejects.toThrow();
      expect(lines).toContain(
        'no sftp-server found: the sftp subsystem (file transfer) is refused',
      );
      expect(lines).toContain('ssh subsystem refused');
    } finally {
      client.end();
      await bare.close();
    }
  });
});
