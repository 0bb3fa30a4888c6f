// A real OpenSSH sshd for benchmarks, configured entirely in a temp dir: it trusts the cluster's
// user CA (the proxy's way in) and an authorized_keys file with a plain key (the baseline
// `ssh -tt`'s way in), so both paths reach the same daemon, shell and PTY.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.mjs';

const SSHD = '/usr/sbin/sshd';
const run = promisify(execFile);

async function keygen(file, comment) {
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file]);
  return (await readFile(`${file}.pub`, 'utf8')).trim();
}

/**
 * Starts sshd -D on 127.0.0.1 and a free port; `dir` holds its keys, config and logs. `nice`
 * runs it (and every session it starts) at that niceness: a stand-in for a server on another
 * machine, which does not take CPU from what a bench measures.
 */
export async function startSshd({ dir, trustedUserCaKeys, nice }) {
  await mkdir(dir, { recursive: true });
  const file = (name) => path.join(dir, name);
  await keygen(file('host_key'), 'bench-sshd-host');
  const clientPublicKey = await keygen(file('client_key'), 'bench-baseline');
  await writeFile(file('authorized_keys'), `${clientPublicKey}\n`);
  await writeFile(file('trusted_user_ca_keys'), `${trustedUserCaKeys.trim()}\n`);
  if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  const port = await freePort();
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${file('host_key')}`,
    `PidFile ${file('sshd.pid')}`,
    `TrustedUserCAKeys ${file('trusted_user_ca_keys')}`,
    `AuthorizedKeysFile ${file('authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PermitRootLogin yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'StrictModes no',
    'UsePAM no',
    'PrintMotd no',
    'PrintLastLog no',
    'UseDNS no',
    // 500 idle sessions arrive in batches: let a batch's handshakes run at once.
    'MaxStartups 100:30:200',
    'MaxSessions 1000',
    'LogLevel ERROR',
    // scp (since OpenSSH 9) and sftp run over this subsystem.
    'Subsystem sftp internal-sftp',
    '',
  ];
  await writeFile(file('sshd_config'), config.join('\n'));
  // sshd re-executes itself per connection, so it needs its absolute path.
  const args = ['-D', '-e', '-f', file('sshd_config')];
  const child = nice
    ? spawn('nice', ['-n', String(nice), SSHD, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    : spawn(SSHD, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    if (output.length < 1_000_000) output += chunk;
  });
  let running = true;
  const exited = new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', (error) => {
      output += `cannot run ${SSHD}: ${error.message}\n`;
      resolve();
    });
  });
  void exited.then(() => (running = false));
  await waitForPort(
    port,
    () => running,
    () => output,
  );

  return {
    host: '127.0.0.1',
    port,
    pid: child.pid,
    addr: `127.0.0.1:${port}`,
    clientKey: file('client_key'),
    output: () => output,
    async stop() {
      if (running) child.kill('SIGTERM');
      await exited;
    },
  };
}

async function waitForPort(port, isRunning, output) {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (!isRunning()) throw new Error(`sshd exited before listening:\n${output()}`);
    const open = await new Promise((resolve) => {
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
  throw new Error(`sshd did not listen on port ${port} within 10 s:\n${output()}`);
}
