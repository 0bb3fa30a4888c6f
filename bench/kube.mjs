#!/usr/bin/env node
// Kubernetes access (docs/kubernetes.md) through the proxy, each figure next to the same request
// straight to the API server in the same run. The API server is the tests' FAKE (it speaks the
// real wire protocol for pods; no Kubernetes API server can run here). Targets are printed, never
// asserted: the exit code is 0 unless the bench itself breaks.
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpsRequest, Agent } from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { cpuSnapshot, cpuSpent, isPostern, perMiB, sumSpent } from './support/cpu-account.mjs';
import { loadFakeKube } from './support/fake-kube.mjs';
import { pathToFileURL } from 'node:url';
import {
  assertBuilt,
  createCliLogin,
  createRole,
  posternBin,
  repoRoot,
  rssBytes,
  startPostern,
} from './support/postern.mjs';
import { fmt, median, MiB, printTable, quantile, verdict } from './support/report.mjs';

const run = promisify(execFile);

const usage = `Usage: npm run build && npm run bench:kube [-- options]

The bench runs the BUILT server (packages/server/dist): build first. Everything listens on
127.0.0.1. It starts the tests' fake Kubernetes API server (bundled into bench/.cache) with
--pods pods, \`postern start\` (temp data dir, plain HTTP, its Kubernetes listener on kube_addr)
with the fake as a cluster, and \`postern kube login\` for a user whose role reaches it. Each
figure runs through Postern and straight to the fake (with its token) in the same run:

  1  GET /api/v1/namespaces/default/pods on one keep-alive connection, --requests times after a
     warm-up: p50 and p99 latency                        target p50 <= straight + 3 ms
     (and the wall time of a whole \`kubectl get pods\`, for context)
  2  kubectl exec (no terminal) of \`head -c --exec-size /dev/zero\`, output read by the bench:
     MiB/s from its first byte to its last, the median of --runs   target >= 0.8x straight
     (and the time to the first byte, which holds kubectl's start and the exec's set-up; and,
     for context, the same through a bare TLS relay written in the bench, which decrypts and
     encrypts every byte as any proxy in between must)
  3  --watches watches of the pods held open at once through Postern, each on its own
     connection: Postern's RSS growth per watch          target <= 100 KiB

Options:
  --pods 20          pods in the default namespace
  --requests 2000    requests of (1)
  --exec-size 50M    bytes of (2) (K, M, G: powers of 1024)
  --runs 9           rounds of (2): one takes about half a second, so the median of a few is
                     at the mercy of one busy moment on two cores
  --watches 200      watches of (3)
  --only 1,2,3       run only these figures
  --cpu-prof DIR     run postern with node --cpu-prof, the profile written to DIR at exit
  -h, --help         this text`;

const { values: opts } = parseArgs({
  options: {
    pods: { type: 'string', default: '20' },
    requests: { type: 'string', default: '2000' },
    'exec-size': { type: 'string', default: '50M' },
    runs: { type: 'string', default: '9' },
    watches: { type: 'string', default: '200' },
    only: { type: 'string', default: '1,2,3' },
    'cpu-prof': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(usage);
  process.exit(0);
}
const execBytes = parseSize(opts['exec-size']);
const requests = Number(opts.requests);
const watches = Number(opts.watches);
const runs = Number(opts.runs);
if (!(execBytes > 0) || !(requests > 0) || !(watches > 0) || !(runs > 0)) {
  console.error(usage);
  process.exit(2);
}
assertBuilt();

const started = Date.now();
const log = (message) =>
  console.error(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${message}`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(
  `Kubernetes bench: ${cpus().length} CPUs, node ${process.version}, load average ${load()} at start`,
);

const dir = await mkdtemp(path.join(tmpdir(), 'postern-bench-kube-'));
const cleanups = [() => rm(dir, { recursive: true, force: true })];
const rows = [];
const cpuNotes = [];
try {
  log('starting the fake API server');
  const { startFakeKubeApiServer } = await loadFakeKube();
  const fake = await startFakeKubeApiServer();
  cleanups.push(() => fake.stop());
  for (let i = 0; i < Number(opts.pods); i++) fake.pods.add({ name: `web-${i}` });

  log('starting postern');
  const postern = await startPostern({
    dataDir: path.join(dir, 'postern'),
    configLines: ['kube_addr: 127.0.0.1:0'],
    extraNodeArgs: opts['cpu-prof']
      ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts['cpu-prof'])}`]
      : [],
  });
  cleanups.push(() => postern.stop());
  const clusterFile = path.join(dir, 'kube.yaml');
  await writeFile(
    clusterFile,
    [
      'kind: kube_cluster',
      'metadata:',
      '  name: bench',
      '  labels: {env: bench}',
      'spec:',
      `  server: ${fake.url}`,
      '  ca_cert: |',
      ...fake.caPem
        .trim()
        .split('\n')
        .map((line) => `    ${line}`),
      '  credentials:',
      `    token: ${fake.token}`,
      '',
    ].join('\n'),
  );
  await postern.cli(['create', '-f', clusterFile]);
  await createRole(postern, 'bench-kube', [
    'kubernetes_labels: {env: bench}',
    'kubernetes_groups: [bench]',
  ]);
  const { home } = await createCliLogin(postern, {
    user: 'bench',
    roles: ['bench-kube'],
    dir: path.join(dir, 'home'),
  });
  const throughKubeconfig = path.join(dir, 'through.kubeconfig');
  const env = { ...process.env, POSTERN_HOME: home, KUBECONFIG: throughKubeconfig };
  await run(process.execPath, [posternBin, 'kube', 'login', 'bench'], { env });
  const through = await contextOf(throughKubeconfig);
  const straightKubeconfig = path.join(dir, 'straight.kubeconfig');
  await writeFile(straightKubeconfig, straightConfig(fake));
  const relay = await startTlsRelay(fake);
  cleanups.push(() => relay.stop());
  const relayKubeconfig = path.join(dir, 'relay.kubeconfig');
  await writeFile(relayKubeconfig, straightConfig({ ...fake, url: relay.url, caPem: relay.caPem }));

  const only = new Set(opts.only.split(',').map((figure) => figure.trim()));
  // (1) one request at a time on a warm connection.
  const straightTarget = {
    base: fake.url,
    tls: { ca: fake.caPem },
    headers: { authorization: `Bearer ${fake.token}` },
  };
  const throughTarget = {
    base: through.server,
    tls: {
      ca: through.ca,
      cert: through.cert,
      key: through.key,
      servername: through.tlsServerName,
    },
    headers: {},
  };
  if (only.has('1')) {
    const latency = {};
    for (const [name, target] of [
      ['straight', straightTarget],
      ['postern', throughTarget],
    ]) {
      log(`(1) ${requests} GETs ${name}`);
      latency[name] = await sequentialGets(target, '/api/v1/namespaces/default/pods', requests);
    }
    const kubectlWall = {};
    for (const [name, file] of [
      ['straight', straightKubeconfig],
      ['postern', throughKubeconfig],
    ]) {
      const times = [];
      for (let i = 0; i < 5; i++) {
        const begin = process.hrtime.bigint();
        await run('kubectl', ['get', 'pods'], { env: { ...process.env, KUBECONFIG: file } });
        times.push(Number(process.hrtime.bigint() - begin) / 1e6);
      }
      kubectlWall[name] = median(times);
    }
    const p50 = (name) => quantile(latency[name], 0.5);
    const p99 = (name) => quantile(latency[name], 0.99);
    rows.push({
      figure: '(1) GET pods, p50 latency, ms',
      value: fmt(p50('postern'), 2),
      baseline: `${fmt(p50('straight'), 2)} straight`,
      compare: `+${fmt(p50('postern') - p50('straight'), 2)} ms`,
      target: '<= straight + 3 ms',
      verdict: verdict(p50('postern') - p50('straight') <= 3),
    });
    rows.push({
      figure: '(1) GET pods, p99 latency, ms',
      value: fmt(p99('postern'), 2),
      baseline: `${fmt(p99('straight'), 2)} straight`,
      compare: `+${fmt(p99('postern') - p99('straight'), 2)} ms`,
      target: '(context)',
      verdict: '',
    });
    rows.push({
      figure: '    a whole `kubectl get pods`, ms (median of 5)',
      value: fmt(kubectlWall.postern, 0),
      baseline: `${fmt(kubectlWall.straight, 0)} straight`,
      compare: `+${fmt(kubectlWall.postern - kubectlWall.straight, 0)} ms`,
      target: '(context)',
      verdict: '',
    });
  }

  // (2) exec output throughput, rounds taking turns.
  if (only.has('2')) {
    fake.pods.add({ name: 'exec-0' });
    const rates = { straight: [], postern: [], relay: [] };
    const firstBytes = { straight: [], postern: [], relay: [] };
    const cpuUse = { straight: [], postern: [], relay: [] };
    for (let round = 1; round <= runs; round++) {
      for (const [name, file] of [
        ['straight', straightKubeconfig],
        ['postern', throughKubeconfig],
        ['relay', relayKubeconfig],
      ]) {
        log(`(2) round ${round}/${runs}: exec ${fmt(execBytes / MiB, 0)} MiB ${name}`);
        const measured = await execThroughput(file, execBytes);
        rates[name].push(measured.mibPerSecond);
        firstBytes[name].push(measured.firstByteMs);
        cpuUse[name].push(measured.cpu);
      }
    }
    const rate = (name) => median(rates[name]);
    const firstByte = (name) => median(firstBytes[name]);
    rows.push({
      figure: `(2) kubectl exec output, ${fmt(execBytes / MiB, 0)} MiB, MiB/s`,
      value: fmt(rate('postern')),
      baseline: `${fmt(rate('straight'))} straight`,
      compare: `${fmt(rate('postern') / rate('straight'), 2)}×`,
      target: '>= 0.8x straight',
      verdict: verdict(rate('postern') / rate('straight') >= 0.8),
    });
    rows.push({
      figure: '    through the bare TLS relay, MiB/s',
      value: '',
      baseline: `${fmt(rate('relay'))} relay`,
      compare: `${fmt(rate('relay') / rate('straight'), 2)}× straight`,
      target: '(context)',
      verdict: '',
    });
    // Where the CPU went, summed over the rounds, per MiB: on 2 cores a path is often bound by
    // one part (the fake API server is a single Node thread), which says what a ratio means.
    const mib = (runs * execBytes) / MiB;
    for (const name of ['straight', 'postern', 'relay']) {
      cpuNotes.push(`(2) ${name.padEnd(8)} ${perMiB(sumSpent(cpuUse[name]), mib)}`);
    }
    rows.push({
      figure: '    time to its first byte, ms',
      value: fmt(firstByte('postern'), 0),
      baseline: `${fmt(firstByte('straight'), 0)} straight`,
      compare: `+${fmt(firstByte('postern') - firstByte('straight'), 0)} ms`,
      target: '(context)',
      verdict: '',
    });
  }

  // (3) idle watches held open.
  if (only.has('3')) {
    log(`(3) ${watches} watches`);
    const before = await settledRss(postern.pid);
    const held = [];
    for (let i = 0; i < watches; i++) {
      held.push(await openWatch(throughTarget, '/api/v1/namespaces/default/pods?watch=true'));
    }
    const after = await settledRss(postern.pid);
    for (const watch of held) watch.destroy();
    const perWatch = (after - before) / watches / 1024;
    rows.push({
      figure: `(3) Postern RSS per idle watch (${watches} held), KiB`,
      value: fmt(perWatch, 1),
      baseline: `${fmt(before / MiB, 1)} → ${fmt(after / MiB, 1)} MiB`,
      compare: '',
      target: '<= 100 KiB',
      verdict: verdict(perWatch <= 100),
    });
  }
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
}
console.log('');
printTable(rows);
if (cpuNotes.length > 0) {
  console.log(
    '\nCPU per MiB of exec output from its first byte to its last, by part (/proc), and how',
  );
  console.log('busy the cores were; Postern split into its main thread and its other threads:');
  for (const line of cpuNotes) console.log(`  ${line}`);
}
console.log(`load average ${load()} at the end`);

/**
 * The least a proxy between kubectl and the API server must do: TLS in (its own certificate),
 * TLS out, bytes piped both ways; nothing read, nothing authorized.
 */
async function startTlsRelay(fake) {
  const { createServer } = await import('node:tls');
  const { connect } = await import('node:tls');
  const module = path.join(repoRoot, 'packages/server/dist/tls/self-signed.js');
  const { createSelfSigned } = await import(pathToFileURL(module).href);
  const own = await createSelfSigned(['localhost', '127.0.0.1']);
  const upstream = new URL(fake.url);
  const server = createServer({ cert: own.cert, key: own.key }, (client) => {
    const out = connect({ host: upstream.hostname, port: Number(upstream.port), ca: fake.caPem });
    client.on('error', () => out.destroy());
    out.on('error', () => client.destroy());
    client.pipe(out);
    out.pipe(client);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${server.address().port}`,
    caPem: own.cert,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The server, CA and client files of the context `postern kube login` wrote. */
async function contextOf(file) {
  const { parse } = await import('yaml');
  const config = parse(await readFile(file, 'utf8'));
  const cluster = config.clusters[0].cluster;
  const user = config.users[0].user;
  return {
    server: cluster.server,
    tlsServerName: cluster['tls-server-name'],
    ca: await readFile(cluster['certificate-authority'], 'utf8'),
    cert: await readFile(user['client-certificate'], 'utf8'),
    key: await readFile(user['client-key'], 'utf8'),
  };
}

function straightConfig(fake) {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'fake',
        cluster: {
          server: fake.url,
          'certificate-authority-data': Buffer.from(fake.caPem).toString('base64'),
        },
      },
    ],
    users: [{ name: 'fake', user: { token: fake.token } }],
    contexts: [{ name: 'fake', context: { cluster: 'fake', user: 'fake', namespace: 'default' } }],
    'current-context': 'fake',
  });
}

/** `count` GETs one after another on one keep-alive connection, after a warm-up: ms each. */
async function sequentialGets(target, apiPath, count) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, ...target.tls });
  const url = new URL(target.base);
  const once = () =>
    new Promise((resolve, reject) => {
      const begin = process.hrtime.bigint();
      const req = httpsRequest(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname.replace(/\/$/, '') + apiPath,
          headers: { accept: 'application/json', ...target.headers },
          servername: target.tls.servername,
        },
        (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode !== 200) return reject(new Error(`GET answered ${res.statusCode}`));
            resolve(Number(process.hrtime.bigint() - begin) / 1e6);
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
  for (let i = 0; i < Math.min(200, count); i++) await once();
  const times = [];
  for (let i = 0; i < count; i++) times.push(await once());
  agent.destroy();
  return times;
}

/** The parts of (2)'s path: the bench's own process runs the fake API server and the relay. */
function kubeParts(comm, cmdline) {
  if (isPostern(comm, cmdline)) return 'postern';
  if (comm === 'kubectl' || comm === 'head') return comm;
  if (cmdline.includes('bench/kube.mjs')) return 'bench (fake API server, relay)';
  return 'other';
}

/**
 * kubectl exec of `head -c bytes /dev/zero`, its stdout counted: MiB/s from the first byte to the
 * last (the transfer), and ms from kubectl's start to the first byte (its start and the set-up).
 */
function execThroughput(kubeconfig, bytes) {
  return new Promise((resolve, reject) => {
    const begin = process.hrtime.bigint();
    const child = spawn(
      'kubectl',
      ['exec', 'exec-0', '--', 'head', '-c', String(bytes), '/dev/zero'],
      {
        env: { ...process.env, KUBECONFIG: kubeconfig },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let received = 0;
    let first;
    let cpuBefore;
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      if (first === undefined) {
        first = process.hrtime.bigint();
        cpuBefore = cpuSnapshot(kubeParts, { splitPostern: true });
      }
      received += chunk.length;
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.once('end', () => {
      const last = process.hrtime.bigint();
      const seconds = Number(last - first) / 1e9;
      const cpu = cpuSpent(cpuBefore, cpuSnapshot(kubeParts, { splitPostern: true }), seconds);
      child.once('close', (code) => {
        if (code !== 0 || received !== bytes) {
          return reject(new Error(`kubectl exec: code ${code}, ${received} bytes: ${stderr}`));
        }
        resolve({
          mibPerSecond: bytes / MiB / seconds,
          firstByteMs: Number(first - begin) / 1e6,
          cpu,
        });
      });
    });
  });
}

/** One watch on a connection of its own, resolved once its answer has started. */
function openWatch(target, apiPath) {
  const url = new URL(target.base);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        agent: false,
        host: url.hostname,
        port: url.port,
        path: url.pathname.replace(/\/$/, '') + apiPath,
        headers: { accept: 'application/json', ...target.headers },
        ...target.tls,
      },
      (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch answered ${res.statusCode}`));
        res.on('data', () => undefined);
        resolve(req);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Postern's RSS once it stops moving (a second apart, within 1%). */
async function settledRss(pid) {
  let last = await rssBytes(pid);
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = await rssBytes(pid);
    if (Math.abs(now - last) / last < 0.01) return now;
    last = now;
  }
  return last;
}

function parseSize(text) {
  const match = /^(\d+(?:\.\d+)?)([KMG]?)i?B?$/i.exec(text.trim());
  if (!match) return NaN;
  const unit = { '': 1, K: 1024, M: MiB, G: 1024 * MiB }[match[2].toUpperCase()];
  return Math.floor(Number(match[1]) * unit);
}
