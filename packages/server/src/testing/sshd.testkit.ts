import { execFile, spawn } from 'node:child_process';
import { mkdirSync, existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const SSHD = '/usr/sbin/sshd';

export interface RunningSshd {
  host: string;
  port: number;
  /** OpenSSH line of the host key sshd presents. */
  hostPublicKey: string;
  configDir: string;
  /** The listening sshd's pid; each connection is served by a process below it. */
  pid: number;
  /** What sshd logged so far (it runs with -e), for failing tests to print. */
  output(): string;
  stop(): Promise<void>;
}

export interface StartSshdOptions {
  /** The contents of its `TrustedUserCAKeys` file. */
  trustedUserCaKeys: string;
  /** Signs the host key; when given, sshd presents the certificate as `HostCertificate`. */
  hostCertificate?: (hostPublicKey: string) => string;
}

/**
 * A real OpenSSH server on 127.0.0.1 and a free port, configured entirely inside a temp dir (its
 * own host key, pid file and config), so tests never touch /etc/ssh. It trusts the given user CA,
 * allows root (tests log in as root) and nothing but public keys, with no authorized_keys at all:
 * the only way in is a certificate.
 */
export async function startSshd(opts: StartSshdOptions): Promise<RunningSshd> {
  const configDir = await mkdtemp(path.join(tmpdir(), 'postern-sshd-'));
  const file = (name: string) => path.join(configDir, name);
  try {
    await promisify(execFile)('ssh-keygen', [
      '-q',
      '-t',
      'ed25519',
      '-N',
      '',
      '-C',
      'sshd-test',
      '-f',
      file('host_key'),
    ]);
    const hostPublicKey = (await readFile(file('host_key.pub'), 'utf8')).trim();
    await writeFile(file('trusted_user_ca_keys'), `${opts.trustedUserCaKeys.trim()}\n`);
    const config = [
      `ListenAddress 127.0.0.1`,
      `HostKey ${file('host_key')}`,
      `PidFile ${file('sshd.pid')}`,
      `TrustedUserCAKeys ${file('trusted_user_ca_keys')}`,
      'AuthorizedKeysFile none',
      'PubkeyAuthentication yes',
      'PermitRootLogin yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'StrictModes no',
      'UsePAM no',
      'PrintMotd no',
      'LogLevel VERBOSE',
      // sftp, and scp since OpenSSH 9, run over this subsystem.
      'Subsystem sftp internal-sftp',
    ];
    if (opts.hostCertificate) {
      await writeFile(file('host_key-cert.pub'), `${opts.hostCertificate(hostPublicKey).trim()}\n`);
      config.push(`HostCertificate ${file('host_key-cert.pub')}`);
    }
    // sshd refuses to start without its privilege separation directory.
    if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

    const port = await freePort();
    await writeFile(file('sshd_config'), [`Port ${port}`, ...config, ''].join('\n'));
    // sshd re-executes itself for each connection, so it needs an absolute path.
    const child = spawn(SSHD, ['-D', '-e', '-f', file('sshd_config')], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let output = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      // A missing binary arrives as 'error' (no 'exit'); scripts/ensure-test-deps.sh installs it.
      child.once('error', (error) => {
        output += `cannot run ${SSHD}: ${error.message}\n`;
        resolve();
      });
    });
    let running = true;
    void exited.then(() => (running = false));

    await waitForPort(
      port,
      () => running,
      () => output,
    );
    return {
      host: '127.0.0.1',
      port,
      hostPublicKey,
      configDir,
      pid: child.pid ?? 0,
      output: () => output,
      async stop() {
        if (running) child.kill('SIGTERM');
        await exited;
        await rm(configDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(configDir, { recursive: true, force: true });
    throw error;
  }
}

/** A port the kernel just handed out; the tiny race until sshd binds it is fine for tests. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(0, '127.0.0.1', resolve),
  );
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address === 'string') throw new Error('no port from the kernel');
  return address.port;
}

/** Resolves once something accepts on 127.0.0.1:`port`; fails if `what` exits first or in 10 s. */
export async function waitForPort(
  port: number,
  isRunning: () => boolean,
  output: () => string,
  what = 'sshd',
) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (!isRunning()) throw new Error(`${what} exited before listening:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not listen on port ${port} within 10 s:\n${output()}`);
}
