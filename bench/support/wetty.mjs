// wetty (the npm package `wetty`), the other web terminal (f) compares the console with: a Node
// server that serves xterm.js in a page and, for each connection, runs ssh in a PTY (node-pty)
// and relays its output over socket.io. Not a dependency of the repo (node-pty is native, and
// every `npm ci` would build it): installed on first use into bench/.cache/wetty, ignored by git.
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './postern.mjs';
import { freePort } from './ports.mjs';

export const WETTY_VERSION = '3.2.0';
const cacheDir = path.join(repoRoot, 'bench/.cache/wetty');
const run = promisify(execFile);
/** node-pty has no Linux prebuild: node-gyp compiles it with these. */
const buildTools = ['make', 'g++', 'python3'];

async function installedVersion() {
  const wetty = path.join(cacheDir, 'node_modules/wetty/package.json');
  const pty = path.join(cacheDir, 'node_modules/node-pty/build/Release/pty.node');
  if (!existsSync(wetty) || !existsSync(pty)) return undefined;
  return JSON.parse(await readFile(wetty, 'utf8')).version;
}

/** Installs wetty into the cache unless the right version is there; returns its server's path. */
export async function ensureWetty({ log = () => {} } = {}) {
  const main = path.join(cacheDir, 'node_modules/wetty/build/main.js');
  if ((await installedVersion()) === WETTY_VERSION) return main;
  const missing = [];
  for (const tool of buildTools) {
    await run('sh', ['-c', `command -v ${tool}`]).catch(() => missing.push(tool));
  }
  if (missing.length) {
    throw new Error(
      `wetty's node-pty builds from source and needs ${missing.join(', ')}: ` +
        `apt-get install ${missing.join(' ')}`,
    );
  }
  log(`installing wetty@${WETTY_VERSION} into ${path.relative(repoRoot, cacheDir)} (once)`);
  const started = Date.now();
  await mkdir(cacheDir, { recursive: true });
  // node-pty's install script builds it; sass's optional file watcher is not needed.
  const manifest = { private: true, allowScripts: { 'node-pty': true, '@parcel/watcher': false } };
  await writeFile(path.join(cacheDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const npmArgs = ['install', '--prefix', cacheDir, '--no-save', '--no-audit', '--no-fund'];
  try {
    await run('npm', [...npmArgs, `wetty@${WETTY_VERSION}`], { maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    throw new Error(`npm install wetty@${WETTY_VERSION} failed:\n${error.stderr ?? error.message}`);
  }
  if ((await installedVersion()) !== WETTY_VERSION) {
    throw new Error(`wetty@${WETTY_VERSION} did not install into ${cacheDir} (node-pty built?)`);
  }
  log(`wetty installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return main;
}

/**
 * Starts wetty on 127.0.0.1 and a free port, plain HTTP, at /wetty/. Each page it serves gets
 * `ssh -t` (in a PTY) to the bench's sshd as root with the sshd's plain key: no password, no
 * host key question (known hosts /dev/null means StrictHostKeyChecking=no in wetty), no agent.
 * `dir` holds the ssh_config wetty's ssh reads.
 */
export async function startWetty({ sshd, dir, log = () => {} }) {
  const main = await ensureWetty({ log });
  await mkdir(dir, { recursive: true });
  const sshConfig = path.join(dir, 'ssh_config');
  await writeFile(sshConfig, 'IdentitiesOnly yes\nBatchMode yes\nLogLevel ERROR\n');
  const port = await freePort();
  const args = [
    main,
    ...['--host', '127.0.0.1', '--port', String(port), '--base', '/wetty/'],
    ...['--ssh-host', sshd.host, '--ssh-port', String(sshd.port), '--ssh-user', 'root'],
    ...['--ssh-auth', 'publickey', '--ssh-key', sshd.clientKey, '--ssh-config', sshConfig],
    ...['--known-hosts', '/dev/null', '--log-level', 'warn'],
    // wetty runs `login` instead of ssh when it is root and the ssh host is local.
    '--force-ssh',
  ];
  const child = spawn(process.execPath, args, {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SSH_AUTH_SOCK: '' },
  });
  let output = '';
  const keep = (chunk) => {
    if (output.length < 1_000_000) output += chunk;
  };
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  let running = true;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  void exited.then(() => (running = false));

  const url = `http://127.0.0.1:${port}/wetty/`;
  const stop = async () => {
    if (running) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (!running) throw new Error(`wetty exited before serving:\n${output}`);
    const served = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (served) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`wetty did not serve ${url} within 15 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, pid: child.pid, output: () => output, stop };
}
