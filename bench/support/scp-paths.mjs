// The copies bench:scp and bench:scp-cpu make: a real sshd registered in a running Postern, a
// user with the ssh_config `postern login` writes, and the paths a file can take to that sshd.
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { addOpenSshNode, createRole, createSshLogin, startPostern } from './postern.mjs';
import { MiB } from './report.mjs';
import { startSshd } from './sshd.mjs';

export const aesGcm = 'aes128-gcm@openssh.com';

/**
 * Starts Postern (node run with `posternNodeArgs`) and an sshd in `dir` and writes a random file
 * of `bytes`. The paths, each
 * `{args, host}` for scp:
 * - proxy: through Postern's SSH listener with `postern login`'s ssh_config (AES-GCM first);
 * - direct: straight to the sshd with a plain key and OpenSSH's defaults (ChaCha20 first);
 * - directAesGcm: the same with the proxy path's cipher, to show what the cipher is worth;
 * - jump: `-J` through the same sshd as its own jump host (what a jump costs by itself);
 * - relayed (when socat is installed): straight to the sshd, but through a ProxyCommand relay
 *   process that only copies bytes: what the client's extra process of any jump costs.
 */
export async function setUpScpPaths({ dir, bytes, posternNodeArgs = [] }) {
  const started = [];
  const stop = async () => {
    for (const party of started.reverse()) await party.stop();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const postern = await startPostern({
      dataDir: path.join(dir, 'postern'),
      extraNodeArgs: posternNodeArgs,
    });
    started.push(postern);
    const sshAddr = postern.logs.find((entry) => typeof entry.sshAddr === 'string')?.sshAddr;
    if (!sshAddr) throw new Error('postern did not log its SSH listener address');
    const ca = await postern.cli(['ca', 'export', '--type', 'user']);
    const sshd = await startSshd({ dir: path.join(dir, 'sshd'), trustedUserCaKeys: ca });
    started.push(sshd);
    await addOpenSshNode(postern, 'bench-sshd', sshd.addr);
    await createRole(postern, 'bench-scp', ["node_labels: {'*': '*'}", 'logins: [root]']);
    const login = await createSshLogin(postern, {
      user: 'bench',
      roles: ['bench-scp'],
      logins: ['root'],
      sshPort: Number(sshAddr.split(':').pop()),
      nodes: ['bench-sshd'],
      dir: path.join(dir, 'client'),
    });
    // The user record was written beside the server, which learns of it from its storage's
    // watch (SQLite: polled): wait until a login through the proxy is taken.
    await untilLoginTaken(login.configFile, 'root@bench-sshd');
    const source = path.join(dir, 'source.bin');
    await writeRandomFile(source, bytes);
    const direct = [
      ...['-i', sshd.clientKey, '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes'],
      ...['-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null'],
      ...['-o', 'LogLevel=ERROR', '-P', String(sshd.port)],
    ];
    const paths = {
      proxy: { args: ['-F', login.configFile], host: 'root@bench-sshd' },
      direct: { args: direct, host: 'root@127.0.0.1' },
      directAesGcm: { args: [...direct, '-o', `Ciphers=${aesGcm}`], host: 'root@127.0.0.1' },
      jump: { args: ['-F', await openSshJumpConfig(dir, sshd)], host: 'root@target' },
    };
    if (hasSocat()) {
      const relay = `ProxyCommand=socat - TCP:127.0.0.1:${sshd.port}`;
      paths.relayed = { args: [...direct, '-o', relay], host: 'root@127.0.0.1' };
    }
    return {
      postern,
      sshd,
      paths,
      source,
      remote: path.join(dir, 'remote.bin'),
      back: path.join(dir, 'back.bin'),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function untilLoginTaken(configFile, host, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tried = spawnSync('ssh', ['-F', configFile, host, 'true'], { stdio: 'ignore' });
    if (tried.status === 0) return;
    if (Date.now() > deadline) throw new Error(`ssh through the proxy to ${host} is refused`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const hasSocat = () => spawnSync('socat', ['-V'], { stdio: 'ignore' }).status === 0;

/** Runs the stock scp; `cipher` forces one cipher on every hop (-o reaches the jump's ssh). */
export function scp(scpArgs, cipher) {
  const forced = cipher ? ['-o', `Ciphers=${cipher}`] : [];
  return new Promise((resolve, reject) =>
    execFile('scp', ['-q', ...forced, ...scpArgs], { timeout: 600_000 }, (error, _out, stderr) =>
      error ? reject(new Error(`scp failed: ${stderr || error.message}`)) : resolve(),
    ),
  );
}

/** ssh_config for `scp -J` through the same sshd as its own jump host, with the plain key. */
async function openSshJumpConfig(dir, sshd) {
  const file = path.join(dir, 'jump_config');
  const common = [
    '  HostName 127.0.0.1',
    `  Port ${sshd.port}`,
    '  User root',
    `  IdentityFile ${sshd.clientKey}`,
    '  IdentitiesOnly yes',
    '  BatchMode yes',
    '  StrictHostKeyChecking no',
    '  UserKnownHostsFile /dev/null',
    '  LogLevel ERROR',
  ];
  const config = ['Host jump', ...common, 'Host target', ...common, '  ProxyJump jump', ''];
  await writeFile(file, config.join('\n'));
  return file;
}

/** Random bytes, so no layer can compress its way to a better figure. */
async function writeRandomFile(file, size) {
  const handle = await open(file, 'w');
  try {
    for (let written = 0; written < size; written += MiB) {
      await handle.write(randomBytes(Math.min(MiB, size - written)));
    }
  } finally {
    await handle.close();
  }
}
