// The built `postern start` for benchmarks: a temp data dir, plain HTTP on a free port, its SSH
// listener and built-in node service on free ports, and the admin CLI against the same store.
// Needs `npm run build` first (packages/server/dist).
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const posternBin = path.join(repoRoot, 'packages/server/bin/postern.js');
const serverDist = path.join(repoRoot, 'packages/server/dist');

export function assertBuilt() {
  const missing = [
    path.join(serverDist, 'main.js'),
    path.join(repoRoot, 'packages/contracts/dist/index.js'),
    path.join(repoRoot, 'packages/web/dist/index.html'),
  ].filter((file) => !existsSync(file));
  if (missing.length) {
    throw new Error(`not built (missing ${missing.join(', ')}): run \`npm run build\` first`);
  }
}

/**
 * Starts `postern start` with `dataDir` and resolves once it logs the console's address.
 * `extraNodeArgs` go to node itself (e.g. --cpu-prof).
 */
export async function startPostern({
  dataDir,
  clusterName = 'bench',
  extraNodeArgs = [],
  configLines = [],
}) {
  await mkdir(dataDir, { recursive: true });
  const configFile = path.join(dataDir, 'postern.yaml');
  await writeFile(
    configFile,
    [
      'ssh_service:',
      '  listen_addr: 127.0.0.1:0',
      'log:',
      '  level: info',
      ...configLines,
      '',
    ].join('\n'),
  );
  const child = spawn(
    process.execPath,
    [
      ...extraNodeArgs,
      posternBin,
      'start',
      '--config',
      configFile,
      '--data-dir',
      dataDir,
      '--web-addr',
      '127.0.0.1:0',
      '--ssh-addr',
      '127.0.0.1:0',
      '--cluster-name',
      clusterName,
      '--insecure-no-tls',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], cwd: dataDir },
  );
  const logs = [];
  // With --trace-gc in extraNodeArgs, V8 prints a line per collection.
  const collections = { markCompact: 0, scavenge: 0 };
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));

  const port = await new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`postern did not start: ${stderr}`)), 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        let entry;
        try {
          entry = JSON.parse(line);
        } catch {
          if (line.includes(': Mark-Compact ')) collections.markCompact++;
          else if (line.includes(': Scavenge ')) collections.scavenge++;
          continue; // the first-admin invite banner is plain text
        }
        if (logs.length < 10_000) logs.push(entry);
        if (
          typeof entry.webAddr === 'string' &&
          String(entry.msg).includes('serving the console')
        ) {
          clearTimeout(timer);
          resolve(Number(entry.webAddr.split(':').pop()));
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`postern exited with ${code} before serving: ${stderr}`));
    });
  });

  return {
    pid: child.pid,
    port,
    // localhost, not 127.0.0.1: Chromium takes __Host- cookies on http://localhost only.
    url: `http://localhost:${port}`,
    dataDir,
    clusterName,
    logs,
    stderr: () => stderr,
    /** Garbage collections so far (counted only when started with --trace-gc). */
    collections: () => ({ ...collections }),
    /** Runs an admin command against the same data dir; resolves with its stdout. */
    async cli(args) {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [posternBin, ...args, '--data-dir', dataDir],
        { cwd: dataDir },
      );
      return stdout;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Registers an agentless OpenSSH host and returns its node id. */
export async function addOpenSshNode(postern, name, addr) {
  const out = await postern.cli(['nodes', 'add', '--name', name, '--addr', addr]);
  const id = /\(([0-9a-f-]{36})\)/.exec(out)?.[1];
  if (!id) throw new Error(`no node id in the output of postern nodes add:\n${out}`);
  return id;
}

/** Creates a role (v7) from its `allow` block with `postern create -f`. */
export async function createRole(postern, name, allowYaml) {
  const file = path.join(postern.dataDir, `role-${name}.yaml`);
  await writeFile(
    file,
    [
      'kind: role',
      'version: v7',
      'metadata:',
      `  name: ${name}`,
      'spec:',
      '  allow:',
      ...allowYaml.map((line) => `    ${line}`),
      '',
    ].join('\n'),
  );
  await postern.cli(['create', '-f', file]);
}

/**
 * A web session for `user` with `roles`, written into the running server's SQLite store through
 * its built modules (as e2e/support/session.ts does): the id is the `__Host-session` cookie, the
 * bearer goes in the terminal socket's first frame.
 */
export async function createWebSession(postern, user, roles) {
  const load = (file) => import(pathToFileURL(path.join(serverDist, file)).href);
  const { openBackend } = await load('backend/index.js');
  const { WebSessionStore } = await load('identity/web-sessions/web-sessions.store.js');
  const { WebSessionService } = await load('identity/web-sessions/web-sessions.service.js');
  const backend = await openBackend({
    type: 'sqlite',
    path: path.join(postern.dataDir, 'postern.db'),
  });
  try {
    const session = await new WebSessionService(new WebSessionStore(backend)).create(user, roles);
    return { id: session.id, bearer: session.bearerToken, cookie: `__Host-session=${session.id}` };
  } finally {
    await backend.close();
  }
}

/**
 * What `postern login` leaves for the stock OpenSSH client, made from the running server's CA
 * through its built modules: a key, its user certificate, known_hosts with the host CA, and the
 * ssh_config login writes, through which `nodes` (names) are reached by jumping via the listener.
 */
export async function createSshLogin(postern, { user, roles, logins, sshPort, nodes, dir }) {
  const load = (file) => import(pathToFileURL(path.join(serverDist, file)).href);
  const { ed25519PrivateKeyObject } = await load('ssh/keys.js');
  const { toOpenSshPrivateKey } = await load('ssh/openssh-key-format.js');
  const { key, certificate, knownHostsLine } = await issueUserCertificate(postern, {
    user,
    roles,
    logins,
  });
  await mkdir(dir, { recursive: true });
  const keyFile = path.join(dir, 'id_ed25519');
  await writeFile(keyFile, toOpenSshPrivateKey(ed25519PrivateKeyObject(key.privateKeyPem)), {
    mode: 0o600,
  });
  await writeFile(`${keyFile}-cert.pub`, `${certificate}\n`);
  await writeFile(path.join(dir, 'known_hosts'), `${knownHostsLine}\n`);
  // The ssh_config `postern login` writes (ProxyJump, certificate, host CA, cipher order),
  // then what a benchmark needs on top: no prompts, no global known_hosts.
  const { renderSshConfig } = await load('cli/login/ssh-config.js');
  const configFile = path.join(dir, 'ssh_config');
  const written = renderSshConfig({
    user,
    cluster: postern.clusterName,
    sshProxyAddr: `127.0.0.1:${sshPort}`,
    nodes,
    keyPath: keyFile,
    certPath: `${keyFile}-cert.pub`,
    knownHostsPath: path.join(dir, 'known_hosts'),
  });
  const quiet = ['Host *', '    GlobalKnownHostsFile /dev/null', '    StrictHostKeyChecking yes'];
  await writeFile(
    configFile,
    [written, ...quiet, '    BatchMode yes', '    LogLevel ERROR', ''].join('\n'),
  );
  return { configFile };
}

/**
 * A POSTERN_HOME as `postern login` leaves it (key, certificate, profile.json) for the CLI's
 * commands that sign their calls with the certificate, such as `postern proxy app`.
 */
export async function createCliLogin(postern, { user, roles, dir }) {
  const { key, certificate } = await issueUserCertificate(postern, { user, roles, logins: [] });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const keyPath = path.join(dir, 'key');
  await writeFile(keyPath, key.privateKeyPem, { mode: 0o600 });
  await writeFile(`${keyPath}-cert.pub`, `${certificate}\n`);
  await writeFile(
    path.join(dir, 'profile.json'),
    JSON.stringify({
      proxy: `http://127.0.0.1:${postern.port}`,
      insecure: false,
      user,
      cluster: postern.clusterName,
      ssh_proxy_addr: '127.0.0.1:0',
      expires: new Date(Date.now() + 3600_000).toISOString(),
      key_path: keyPath,
      cert_path: `${keyPath}-cert.pub`,
    }),
  );
  return { home: dir };
}

/**
 * A key and an hour's user certificate from the running server's CA, through its built modules;
 * the user gets a record first if it has none (the proxy refuses a certificate of a deleted user).
 */
async function issueUserCertificate(postern, { user, roles, logins }) {
  const load = (file) => import(pathToFileURL(path.join(serverDist, file)).href);
  const { openBackend } = await load('backend/index.js');
  const { ClusterCa } = await load('ssh/ca.service.js');
  const { generateEd25519Key } = await load('ssh/keys.js');
  const { UsersStore } = await load('identity/users/users.store.js');
  const backend = await openBackend({
    type: 'sqlite',
    path: path.join(postern.dataDir, 'postern.db'),
  });
  try {
    const ca = await ClusterCa.loadOrCreate(backend, postern.clusterName);
    const users = new UsersStore(backend);
    const created = !(await users.get(user));
    if (created) {
      await users.create({
        kind: 'user',
        version: 'v2',
        metadata: { name: user },
        spec: {
          roles,
          traits: { logins: [] },
          authType: 'local',
          createdAt: new Date().toISOString(),
        },
        status: {},
      });
    }
    if (created) {
      // The server learns of a record written by another process at its next poll of the
      // SQLite file (every 250 ms): a command signed before that is refused as a deleted user.
      await new Promise((resolve) => setTimeout(resolve, 750));
    }
    const key = generateEd25519Key();
    const certificate = ca.issueUserCertificate({
      user,
      roles,
      logins,
      publicKey: key.publicKey,
      ttlMs: 3600_000,
    });
    return { key, certificate, knownHostsLine: ca.knownHostsLine() };
  } finally {
    await backend.close();
  }
}

/** Resident memory of a process in bytes (VmRSS). */
export async function rssBytes(pid) {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}
