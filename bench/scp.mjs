#!/usr/bin/env node
// scp through the SSH proxy (issue 7): the stock `scp` copies a file to and from a real sshd,
// once through Postern's SSH listener (`-J`, the proxy ends the inner connection and relays the
// SFTP session with its auditor) and once straight to the same sshd with a plain key, in the same
// run. Run after `npm run build`. Target: through the proxy at least 0.7× direct.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  addOpenSshNode,
  assertBuilt,
  createRole,
  createSshLogin,
  startPostern,
} from './support/postern.mjs';
import { fmt, MiB, median, printTable, verdict } from './support/report.mjs';
import { startSshd } from './support/sshd.mjs';

const usage = `Usage: npm run build && npm run bench:scp [-- --mib 200] [--runs 3]

  --mib   size of the file copied, in MiB (default 200)
  --runs  copies each way per path; the median is reported (default 3)
  --cipher  an SSH cipher for every hop (scp -c), e.g. aes128-gcm@openssh.com`;

const { values: args } = parseArgs({
  options: {
    mib: { type: 'string', default: '200' },
    runs: { type: 'string', default: '3' },
    cipher: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const bytes = Number(args.mib) * MiB;
const runs = Number(args.runs);
if (!(bytes > 0) || !(runs >= 1)) {
  console.error(usage);
  process.exit(2);
}
assertBuilt();

const aesGcm = 'aes128-gcm@openssh.com';
const dir = await mkdtemp(path.join(tmpdir(), 'postern-bench-scp-'));
let postern;
let sshd;
try {
  postern = await startPostern({ dataDir: path.join(dir, 'postern') });
  const sshAddr = postern.logs.find((entry) => typeof entry.sshAddr === 'string')?.sshAddr;
  if (!sshAddr) throw new Error('postern did not log its SSH listener address');
  const ca = await postern.cli(['ca', 'export', '--type', 'user']);
  sshd = await startSshd({ dir: path.join(dir, 'sshd'), trustedUserCaKeys: ca });
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

  const source = path.join(dir, 'source.bin');
  await writeRandomFile(source, bytes);
  const remote = path.join(dir, 'remote.bin');
  const back = path.join(dir, 'back.bin');
  const direct = [
    '-i',
    sshd.clientKey,
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    '-P',
    String(sshd.port),
  ];
  const jumpConfig = await openSshJumpConfig(dir, sshd);
  // The client as a user has it: `postern login`'s ssh_config through the proxy (AES-GCM
  // first), OpenSSH's defaults straight to the sshd (ChaCha20-Poly1305 first). `directAesGcm`
  // is the straight copy with the proxy path's cipher, to show what the cipher choice is worth.
  const paths = {
    proxy: { args: ['-F', login.configFile], host: 'root@bench-sshd' },
    direct: { args: direct, host: 'root@127.0.0.1' },
    directAesGcm: { args: [...direct, '-o', `Ciphers=${aesGcm}`], host: 'root@127.0.0.1' },
    jump: { args: ['-F', jumpConfig], host: 'root@target' },
  };
  const results = Object.fromEntries(
    Object.keys(paths).map((name) => [name, { up: [], down: [] }]),
  );
  // One warm-up copy each way per path: host key pinning, page cache.
  for (let run = 0; run <= runs; run++) {
    for (const [name, { args: scpArgs, host }] of Object.entries(paths)) {
      const up = await timed(() => scp([...scpArgs, source, `${host}:${remote}`]));
      const down = await timed(() => scp([...scpArgs, `${host}:${remote}`, back]));
      if ((await stat(back)).size !== bytes) throw new Error(`${name}: the copy came back short`);
      if (run > 0) {
        results[name].up.push(up);
        results[name].down.push(down);
      }
    }
  }
  const rate = (ms) => bytes / MiB / (ms / 1000);
  const rows = ['up', 'down'].map((way) => {
    const proxy = rate(median(results.proxy[way]));
    const baseline = rate(median(results.direct[way]));
    return {
      figure: `scp ${fmt(bytes / MiB, 0)} MiB ${way === 'up' ? 'upload' : 'download'}`,
      value: `${fmt(proxy)} MiB/s`,
      baseline: `${fmt(baseline)} MiB/s`,
      compare: `${fmt(proxy / baseline, 2)}×`,
      target: '≥ 0.7×',
      verdict: verdict(proxy / baseline >= 0.7),
    };
  });
  // Context, no target: the proxy against a straight copy with its own cipher (what is left
  // once the cipher is the same), and what a jump costs by itself: the stock client's nested
  // SSH through OpenSSH's own sshd as the jump host (Postern ends the inner connection too, to
  // record and audit it).
  const context = [
    ['proxy', 'directAesGcm', 'through Postern vs straight, both AES-GCM'],
    ['jump', 'direct', 'OpenSSH as jump host vs straight'],
  ];
  for (const [path_, against, label] of context) {
    for (const way of ['up', 'down']) {
      const value = rate(median(results[path_][way]));
      const baseline = rate(median(results[against][way]));
      rows.push({
        figure: `  (${label}, ${way === 'up' ? 'upload' : 'download'})`,
        value: `${fmt(value)} MiB/s`,
        baseline: `${fmt(baseline)} MiB/s`,
        compare: `${fmt(value / baseline, 2)}×`,
        target: '',
        verdict: '',
      });
    }
  }
  printTable(rows);
  console.log(
    'baseline: scp straight to the same sshd with a plain key and OpenSSH defaults;',
    `through Postern with the ssh_config postern login writes; median of ${runs} runs`,
  );
  if (args.cipher) console.log(`every hop of every path forced to ${args.cipher}`);
} finally {
  await postern?.stop();
  await sshd?.stop();
  await rm(dir, { recursive: true, force: true });
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

function scp(scpArgs) {
  // -o reaches the jump's ssh too (ProxyJump passes -F but not -c).
  const cipher = args.cipher ? ['-o', `Ciphers=${args.cipher}`] : [];
  return new Promise((resolve, reject) =>
    execFile(
      'scp',
      ['-q', ...cipher, ...scpArgs],
      { timeout: 600_000 },
      (error, _stdout, stderr) =>
        error ? reject(new Error(`scp failed: ${stderr || error.message}`)) : resolve(),
    ),
  );
}

async function timed(action) {
  const started = performance.now();
  await action();
  return performance.now() - started;
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
