import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface RunningSshd {
  port: number;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the OS picks it; sshd cannot be told to pick one). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * A real OpenSSH server on a free loopback port, configured like an agentless host that trusts
 * the cluster: `TrustedUserCAKeys` holds the line `postern ca export --type user` printed. All
 * its files (config, host key, pid file) live in a temporary dir; the host's /etc/ssh is never
 * read or changed.
 */
export async function startSshd(userCaLine: string): Promise<RunningSshd> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-sshd-'));
  const hostKey = path.join(dir, 'ssh_host_ed25519_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  await writeFile(path.join(dir, 'user_ca.pub'), `${userCaLine.trim()}\n`);
  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `TrustedUserCAKeys ${path.join(dir, 'user_ca.pub')}`,
      // Certificates only: no keys of root's own, no passwords.
      'AuthorizedKeysFile none',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin yes',
      // No PAM stack to configure, and the temp dir's modes are not sshd's business here.
      'UsePAM no',
      'StrictModes no',
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      // File transfer: sshd's own SFTP server, as distributions configure it.
      'Subsystem sftp internal-sftp',
      '',
    ].join('\n'),
  );
  // sshd's privilege separation dir; a container may not have it.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  // -D: stay in the foreground (a child we can stop); -e: log to stderr, where we wait for it.
  const child = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sshd did not start: ${log}`)), 10_000);
    child.stderr.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes(`Server listening on 127.0.0.1 port ${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sshd exited with ${code}: ${log}`));
    });
  });

  return {
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise((resolve) => {
          child.once('exit', resolve);
          child.kill('SIGTERM');
        });
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
