#!/usr/bin/env node
// High availability: three figures of a cluster of `postern start` processes on one PostgreSQL
// schema with recordings in an S3 bucket (Swift, started here), each beside a baseline measured
// in the same run (docs/high-availability.md).
//
// a. Failover: three proxies and a `postern agent` (its node reached through every proxy). One
//    proxy, the one the agent joined through, is killed (SIGKILL) while a terminal session runs on
//    it; timed from the kill: a new session through each surviving proxy reaching the node (its
//    shell's first prompt), and the lost session's end written to the audit log by a survivor,
//    with its recording sealed in the bucket. Baseline: opening a session on the healthy cluster.
//    Target: the surviving proxies serve new sessions within 10 s.
// b. Player seek in a one-hour recording stored in S3 against the same recording in a local
//    directory: one synthetic session recorded by the built recorder into both at once, then the
//    player's chunk reads (readChunkAt, then readChunkFrom up to the time) at random times.
//    Target: S3 p50 ≤ 150 ms.
// c. Recording write load: 200 sessions producing output all at once for ~20 s, recorded through
//    the proxy's S3 path (the spool in PostgreSQL, flushed every second, uploaded when a recording
//    ends) against the same 200 sessions recorded into one proxy's local directory: bytes/s,
//    spool rows/s, PostgreSQL CPU (the spool's own backends) and this process's CPU.
//
// Needs `npm run build` (packages/server/dist), PostgreSQL at 127.0.0.1:5432 (database `test`;
// POSTERN_BENCH_PG_URL to change; a fresh schema, dropped at the end) and Swift (Debian's swift-*
// packages, scripts/ensure-test-deps.sh). Benches report; they do not fail on a missed target.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { openProxyTerminal, terminalUrl } from './support/proxy-client.mjs';
import { fmt, MiB, median, printTable, quantile, verdict } from './support/report.mjs';
import { startSwift, swiftS3Client } from '../scripts/testing/swift-server.mjs';

const usage = `Usage: npm run build && npm run bench:ha [-- --only failover,seek,load] [--quick]

  --only      which figures: failover, seek, load (comma-separated; default all)
  --quick     a shorter run (about a minute): --mib 10 --seeks 20 --seconds 8
  --minutes   length of the recorded session for the seek figure (default 60)
  --mib       size of that recording's cast, in MiB (default 100)
  --seeks     random seeks timed in each store (default 40)
  --sessions  recording sessions of the write load (default 200)
  --seconds   how long they produce output, per store (default 20)
  --rate      output of each session, KiB/s (default 64)
  --verbose   say what happens as it happens`;

const { values: args } = parseArgs({
  options: {
    only: { type: 'string', default: 'failover,seek,load' },
    quick: { type: 'boolean', default: false },
    minutes: { type: 'string', default: '60' },
    mib: { type: 'string' },
    seeks: { type: 'string' },
    sessions: { type: 'string', default: '200' },
    seconds: { type: 'string' },
    rate: { type: 'string', default: '64' },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const only = new Set(args.only.split(',').map((each) => each.trim()));
const minutes = Number(args.minutes);
const castMiB = Number(args.mib ?? (args.quick ? 10 : 100));
const seeks = Number(args.seeks ?? (args.quick ? 20 : 40));
const sessions = Number(args.sessions);
const seconds = Number(args.seconds ?? (args.quick ? 8 : 20));
const rateKiB = Number(args.rate);
if (
  [...only].some((each) => !['failover', 'seek', 'load'].includes(each)) ||
  ![minutes, castMiB, seeks, sessions, seconds, rateKiB].every((n) => n > 0)
) {
  console.error(usage);
  process.exit(2);
}

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const serverDist = path.join(root, 'packages/server/dist');
const posternBin = path.join(root, 'packages/server/bin/postern.js');
const serverRequire = createRequire(path.join(root, 'packages/server/package.json'));
const pg = serverRequire('pg');
const s3sdk = serverRequire('@aws-sdk/client-s3');
const load = (file) => import(pathToFileURL(path.join(serverDist, file)).href);
const pgUrl = process.env.POSTERN_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `postern_bench_ha_${randomBytes(4).toString('hex')}`;
const clusterName = 'bench-ha';
const login = userInfo().username;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const log = (message) => args.verbose && console.log(`[${new Date().toISOString()}] ${message}`);
/** Linux's USER_HZ: /proc gives CPU time in hundredths of a second. */
const msPerTick = 10;

for (const file of ['main.js', 'blobs/s3/s3-blob-store.js', 'blobs/spool/spooled-blob-store.js']) {
  if (!existsSync(path.join(serverDist, file))) {
    console.error(
      `No built server (${file} is missing in ${serverDist}): run npm run build first.`,
    );
    process.exit(2);
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

/** User + system CPU ms of a process so far (undefined once it is gone). */
function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * msPerTick;
  } catch {
    return undefined;
  }
}

/** A `postern …` child whose JSON log lines are kept; `until` resolves on a matching line. */
function runPostern(name, argv) {
  const child = spawn(process.execPath, [posternBin, ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const lines = [];
  const waiters = new Set();
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    output = (output + chunk).slice(-200_000);
    buffered += chunk;
    const parts = buffered.split('\n');
    buffered = parts.pop() ?? '';
    for (const line of parts) {
      let entry;
      try {
        entry = JSON.parse(line);
      } catch {
        continue;
      }
      lines.push(entry);
      for (const waiter of [...waiters]) {
        if (waiter.test(entry)) {
          waiters.delete(waiter);
          waiter.resolve(entry);
        }
      }
    }
  });
  child.stderr
    .setEncoding('utf8')
    .on('data', (chunk) => (output = (output + chunk).slice(-200_000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  void exited.then(() => {
    for (const waiter of waiters)
      waiter.reject(new Error(`${name} exited:\n${output.slice(-4000)}`));
    waiters.clear();
  });
  return {
    child,
    pid: child.pid,
    lines,
    output: () => output,
    /** The first line (from the start) that `test` accepts. */
    until(test, timeoutMs = 30_000) {
      const seen = lines.find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = { test, resolve, reject };
        waiters.add(waiter);
        setTimeout(() => {
          if (!waiters.delete(waiter)) return;
          reject(
            new Error(`${name}: no such log line in ${timeoutMs} ms:\n${output.slice(-4000)}`),
          );
        }, timeoutMs);
      });
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// a. Failover

function s3Config(swift, bucket, prefix) {
  return {
    type: 's3',
    bucket,
    endpoint: swift.endpoint,
    region: swift.region,
    path_style: true,
    prefix,
    credentials: { access_key_id: swift.accessKeyId, secret_access_key: swift.secretAccessKey },
    spool_flush_interval: '1s',
  };
}

/** Starts proxy `index`; it is in `started` (to be stopped) even when its start fails. */
async function startProxy(dir, index, recordings, started) {
  const dataDir = path.join(dir, `proxy-${index}`);
  await mkdir(dataDir, { recursive: true });
  const configFile = path.join(dir, `proxy-${index}.yaml`);
  const config = {
    cluster_name: clusterName,
    web_addr: '127.0.0.1:0',
    ssh_addr: '127.0.0.1:0',
    // Each proxy's own address (port 0: its web listener's), as agents must reach every proxy.
    public_addr: '127.0.0.1:0',
    insecure_no_tls: true,
    storage: { type: 'postgres', url: pgUrl, schema },
    ssh_service: { enabled: false },
    proxy_ttl: '3s',
    shutdown_grace: '5s',
    recordings,
    log: { level: 'info', format: 'json' },
  };
  // JSON is YAML.
  await writeFile(configFile, JSON.stringify(config, null, 2));
  const proc = runPostern(`proxy ${index}`, [
    'start',
    '--config',
    configFile,
    '--data-dir',
    dataDir,
  ]);
  const proxy = { ...proc, index, url: '', configFile, dataDir };
  started.push(proxy);
  const serving = await proc.until((line) => /Postern is serving the console/.test(line.msg));
  proxy.url = `http://${serving.webAddr}`;
  return proxy;
}

async function cli(proxy, argv) {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [posternBin, ...argv, '--config', proxy.configFile, '--data-dir', proxy.dataDir],
    { cwd: proxy.dataDir },
  );
  return stdout;
}

/** A user of `roles` and a web session of theirs, written in the cluster's storage. */
async function webSession(user, roles) {
  const { openBackend } = await load('backend/index.js');
  const { UsersStore } = await load('identity/users/users.store.js');
  const { WebSessionStore } = await load('identity/web-sessions/web-sessions.store.js');
  const { WebSessionService } = await load('identity/web-sessions/web-sessions.service.js');
  const backend = await openBackend({ type: 'postgres', url: pgUrl, schema });
  try {
    await new UsersStore(backend).create({
      kind: 'user',
      version: 'v2',
      metadata: { name: user },
      spec: { roles, traits: { logins: [] }, authType: 'local', createdAt: '' },
      status: {},
    });
    const session = await new WebSessionService(new WebSessionStore(backend)).create(user, roles);
    return { cookie: `__Host-session=${session.id}`, bearer: session.bearerToken };
  } finally {
    await backend.close();
  }
}

const promptPattern = /[#$] $/;

/** A terminal on the agent's node through `proxy`; resolves once its shell prompted. */
async function openSession(proxy, session, nodeId, timeoutMs = 10_000) {
  const url = terminalUrl(proxy.url, { serverId: nodeId, login });
  const opened = performance.now();
  const terminal = await Promise.race([
    openProxyTerminal({ url, cookie: session.cookie, bearer: session.bearer }),
    sleep(timeoutMs).then(() => {
      throw new Error('the terminal socket did not open');
    }),
  ]);
  try {
    await terminal.out.waitFor(promptPattern, { timeoutMs, what: 'the first prompt' });
  } catch (error) {
    await terminal.close();
    throw error;
  }
  return { terminal, ms: performance.now() - opened };
}

async function failover(swift, bucket, dir, admin) {
  const rows = [];
  const proxies = [];
  let agent;
  try {
    log('failover: starting 3 proxies');
    const recordings = s3Config(swift, bucket, 'failover/');
    // The first alone creates the schema's tables; the others then start together.
    await startProxy(dir, 0, recordings, proxies);
    await Promise.all([1, 2].map((i) => startProxy(dir, i, recordings, proxies)));
    proxies.sort((a, b) => a.index - b.index);
    const roleFile = path.join(dir, 'role.yaml');
    await writeFile(
      roleFile,
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name: 'bench-ha' },
        spec: {
          allow: {
            logins: [login],
            node_labels: { '*': '*' },
            rules: [{ resources: ['session'], verbs: ['list', 'read'] }],
          },
        },
      }),
    );
    await cli(proxies[0], ['create', '-f', roleFile]);
    const tokenOut = await cli(proxies[0], ['tokens', 'add', '--type', 'node']);
    const token = /--token[= ](\S+)/.exec(tokenOut)?.[1];
    if (!token) throw new Error(`no token in the output of postern tokens add:\n${tokenOut}`);
    const session = await webSession('bench', ['bench-ha']);

    log('failover: starting the agent');
    const agentDir = path.join(dir, 'agent');
    agent = runPostern('agent', [
      ...['agent', '--proxy', proxies[0].url, '--token', token, '--data-dir', agentDir],
    ]);
    const joined = await agent.until((line) => line.msg === 'joined the cluster');
    const nodeId = joined.nodeId;
    for (const proxy of proxies) {
      await agent.until(
        (line) =>
          /tunnel to the proxy is up/.test(line.msg) && JSON.stringify(line).includes(proxy.url),
      );
    }
    // The proxies learn the role through their watch a moment after it was written.
    for (const proxy of proxies) {
      const deadline = Date.now() + 20_000;
      for (;;) {
        try {
          const { terminal } = await openSession(proxy, session, nodeId);
          await terminal.close();
          break;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await sleep(200);
        }
      }
    }

    const [victim, ...survivors] = proxies;
    log('failover: baseline sessions');
    const baseline = [];
    for (let round = 0; round < 3; round++) {
      for (const proxy of survivors) {
        const { terminal, ms } = await openSession(proxy, session, nodeId);
        baseline.push(ms);
        await terminal.close();
      }
    }
    // A session live on the proxy about to die: a survivor must end it in the audit log.
    const live = await openSession(victim, session, nodeId);
    live.terminal.type('echo recorded before the crash\r');
    // The spool takes what the recorder holds every second (spool_flush_interval).
    await sleep(2500);

    log(`failover: SIGKILL proxy 0 (pid ${victim.pid})`);
    const killedAt = performance.now();
    const killedWall = Date.now();
    victim.child.kill('SIGKILL');
    const outcomes = await Promise.all(
      survivors.map(async (proxy) => {
        let tries = 0;
        for (;;) {
          tries += 1;
          try {
            const { terminal } = await openSession(proxy, session, nodeId, 5000);
            const ms = performance.now() - killedAt;
            await terminal.close();
            return { ms, tries };
          } catch (error) {
            if (performance.now() - killedAt > 60_000) throw error;
            await sleep(100);
          }
        }
      }),
    );
    await live.terminal.close().catch(() => {});

    log('failover: waiting for the lost session to be ended');
    const deadline = Date.now() + 60_000;
    let ended;
    while (!ended && Date.now() < deadline) {
      const { rows: found } = await admin.query(
        `SELECT session_id, time, data->>'session_recording' AS recording FROM "${schema}".audit_events
         WHERE code = 'T2004I' AND data->>'lost_proxy' IS NOT NULL`,
      );
      ended = found[0];
      if (!ended) await sleep(100);
    }
    let sealedMs;
    if (ended) {
      const s3 = swiftS3Client(swift);
      const key = `failover/${ended.session_id}.index.json`;
      while (sealedMs === undefined && Date.now() < deadline) {
        try {
          await s3.send(new s3sdk.HeadObjectCommand({ Bucket: bucket, Key: key }));
          sealedMs = Date.now() - killedWall;
        } catch {
          await sleep(100);
        }
      }
      s3.destroy();
    }

    const reached = outcomes.map((outcome) => outcome.ms);
    const tries = outcomes.map((outcome) => outcome.tries).join('/');
    const failoverMs = Math.max(...reached);
    rows.push(
      {
        figure: 'failover: new session via each survivor',
        value: `${fmt(failoverMs / 1000, 2)} s`,
        baseline: `${fmt(median(baseline) / 1000, 2)} s`,
        compare: `${reached.map((ms) => fmt(ms / 1000, 2)).join(' / ')} s, tries ${tries}`,
        target: '≤ 10 s',
        verdict: verdict(failoverMs <= 10_000),
      },
      {
        figure: 'failover: lost session ended (audit)',
        value: ended ? `${fmt((new Date(ended.time) - killedWall) / 1000, 2)} s` : 'never',
        baseline: 'proxy_ttl 3 s',
        compare: ended ? `recording ${ended.recording}` : '',
        target: '',
        verdict: '',
      },
      {
        figure: 'failover: its recording sealed in S3',
        value: sealedMs === undefined ? 'never' : `${fmt(sealedMs / 1000, 2)} s`,
        baseline: '',
        compare: '',
        target: '',
        verdict: '',
      },
    );
  } finally {
    await agent?.stop();
    await Promise.all(proxies.map((proxy) => proxy.stop()));
  }
  return rows;
}

function s3Location(swift, bucket, prefix) {
  return {
    bucket,
    endpoint: swift.endpoint,
    region: swift.region,
    pathStyle: true,
    prefix,
    credentials: { accessKeyId: swift.accessKeyId, secretAccessKey: swift.secretAccessKey },
  };
}

// ---------------------------------------------------------------------------------------------
// b. Seek

/** Terminal output of a busy session: coloured log lines, listings, prompts; numbered. */
function outputLine(i) {
  switch (i % 4) {
    case 0:
      return `\x1b[32m2026-11-25T10:${String(i % 60).padStart(2, '0')}:00Z\x1b[0m INFO request id=${i} path=/api/v1/items/${i % 977} status=200 took=${i % 97}ms\r\n`;
    case 1:
      return `drwxr-xr-x  2 root root  4096 Nov 25 10:00 \x1b[1;34mdir-${i % 500}\x1b[0m\r\n`;
    case 2:
      return `\x1b[33mWARN\x1b[0m  queue depth ${i % 1000} above soft limit on worker-${i % 16}\r\n`;
    default:
      return `\x1b[1;32mroot@web-1\x1b[0m:\x1b[1;34m~\x1b[0m# tail -f /var/log/app.log | grep ${i % 13}\r\n`;
  }
}

function outputText(bytes, from) {
  let text = '';
  let line = from;
  while (text.length < bytes) text += outputLine(line++);
  return { text, next: line };
}

async function seek(swift, bucket, dir) {
  const { SessionRecorder } = await load('modules/recordings/session-recorder.js');
  const { DirRecordingStore, BlobRecordingStore } = await load(
    'modules/recordings/recording-store.js',
  );
  const { S3BlobStore } = await load('blobs/s3/s3-blob-store.js');
  const { readChunkAt, readChunkFrom } = await load('modules/recordings/playback.js');
  const { Terminal } = serverRequire('@xterm/headless');
  const { SerializeAddon } = serverRequire('@xterm/addon-serialize');

  const local = new DirRecordingStore(path.join(dir, 'seek-recordings'));
  const s3Blobs = new S3BlobStore(s3Location(swift, bucket, 'seek/'));
  const s3 = new BlobRecordingStore(s3Blobs);
  // Requests the player's reads make, per seek.
  let s3Requests = 0;
  s3Blobs.client.middlewareStack.add(
    (next) => (args) => {
      s3Requests += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchRequestCount' },
  );
  await local.init();
  await s3.init();

  const cols = 120;
  const rows = 40;
  const sid = '5eec0000-1111-4222-8333-944455556666';
  const clock = { now: 0 };
  const header = { width: cols, height: rows, start: 0, term: 'xterm-256color', title: 'web-1' };
  const failures = [];
  const failed = (reason) => failures.push(reason);
  const recorders = [local, s3].map(
    (store) =>
      new SessionRecorder(store.create(sid), header, { now: () => clock.now, onFailure: failed }),
  );
  const mirror = new Terminal({ cols, rows, scrollback: 200, allowProposedApi: true });
  const serializer = new SerializeAddon();
  mirror.loadAddon(serializer);
  const written = (data) => new Promise((resolve) => mirror.write(data, resolve));

  log(`seek: recording ${minutes} min, ${castMiB} MiB of cast into S3 and a directory`);
  const started = performance.now();
  const durationMs = minutes * 60_000;
  const bursts = Math.ceil(durationMs / 100);
  // The cast escapes output as JSON (ESC becomes \u001b): aim the cast's size, not the output's.
  const sample = outputText(4096, 0).text;
  const perBurst = Math.ceil(
    (castMiB * MiB) / (JSON.stringify(sample).length / sample.length) / bursts,
  );
  let line = 0;
  let unmirrored = '';
  let lastKeyframe = 0;
  for (let burst = 1; burst <= bursts; burst++) {
    clock.now = burst * 100;
    const out = outputText(perBurst, line);
    line = out.next;
    const bytes = Buffer.from(out.text);
    for (const recorder of recorders) recorder.output(bytes);
    unmirrored += out.text;
    // A keyframe every 5 s, as the proxy takes them; the mirror catches up only then.
    if (clock.now - lastKeyframe >= 5000) {
      lastKeyframe = clock.now;
      await written(unmirrored);
      unmirrored = '';
      const screen = serializer.serialize({ scrollback: 200 });
      for (const recorder of recorders) {
        recorder.keyframe(recorder.position(), { w: cols, h: rows }, screen);
      }
    }
    // Lets the encoder's results be written as they come.
    if (burst % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await Promise.all(recorders.map((recorder) => recorder.close(['alice'])));
  mirror.dispose();
  if (failures.length > 0) throw new Error(`recording failed: ${failures.join('; ')}`);
  const recordMs = performance.now() - started;
  const [localIndex, s3Index] = await Promise.all([local.readIndex(sid), s3.readIndex(sid)]);
  if (!localIndex || !s3Index) throw new Error('a recording has no index');
  const castGz = await s3Blobs.stat(`${sid}.cast.gz`);
  log(
    `seek: recorded in ${fmt(recordMs / 1000)} s: ${fmt(s3Index.castBytes / MiB)} MiB of cast, ` +
      `${fmt((castGz?.size ?? 0) / MiB)} MiB gzip, ${s3Index.keyframes.length} keyframes`,
  );

  /** The player's reads for a seek to `at`: the chunk at the keyframe, then on up to `at`. */
  const seekRead = async (store, index, at) => {
    const begin = performance.now();
    let chunk = await readChunkAt(store, index, at, 256 * 1024);
    for (;;) {
      const last = chunk.events.at(-1);
      if (!last || last[0] > at || chunk.next === null) break;
      chunk = await readChunkFrom(store, index, chunk.next, 256 * 1024);
    }
    return performance.now() - begin;
  };
  const duration = s3Index.durationMs / 1000;
  const times = Array.from({ length: seeks }, () => Math.random() * duration);
  // The worst places too: just before a keyframe (the longest way from one), the very end.
  times.push(s3Index.keyframes[Math.floor(s3Index.keyframes.length / 3)].t - 0.01, duration);
  await seekRead(s3, s3Index, 1);
  await seekRead(local, localIndex, 1);
  const s3Ms = [];
  const localMs = [];
  const requestsBefore = s3Requests;
  for (const [i, at] of times.entries()) {
    // Alternating which goes first, so neither always finds the other's work cached.
    if (i % 2) {
      s3Ms.push(await seekRead(s3, s3Index, at));
      localMs.push(await seekRead(local, localIndex, at));
    } else {
      localMs.push(await seekRead(local, localIndex, at));
      s3Ms.push(await seekRead(s3, s3Index, at));
    }
  }
  const requestsPerSeek = (s3Requests - requestsBefore) / times.length;
  s3Blobs.client.destroy();
  const p50 = median(s3Ms);
  return [
    {
      figure: `seek p50, 1 h recording (${times.length} seeks)`,
      value: `${fmt(p50)} ms`,
      baseline: `${fmt(median(localMs))} ms`,
      compare: `${fmt(p50 / median(localMs))}×, ${fmt(requestsPerSeek)} requests`,
      target: '≤ 150 ms',
      verdict: verdict(p50 <= 150),
    },
    {
      figure: 'seek p95',
      value: `${fmt(quantile(s3Ms, 0.95))} ms`,
      baseline: `${fmt(quantile(localMs, 0.95))} ms`,
      compare: `${fmt(quantile(s3Ms, 0.95) / quantile(localMs, 0.95))}×`,
      target: '',
      verdict: '',
    },
    {
      figure: 'seek max',
      value: `${fmt(Math.max(...s3Ms))} ms`,
      baseline: `${fmt(Math.max(...localMs))} ms`,
      compare: '',
      target: '',
      verdict: '',
    },
  ];
}

// ---------------------------------------------------------------------------------------------
// c. Write load

/**
 * `count` sessions producing `rateKiB` KiB/s of output each for `seconds` (after a second's
 * warm-up) into `store`; a session whose recorder is behind (compression or storage) skips its
 * output until it caught up, as the proxy pauses such a session. Returns what the window saw.
 */
async function flood(store, label, { sample } = {}) {
  const { SessionRecorder } = await load('modules/recordings/session-recorder.js');
  const failures = [];
  const header = {
    width: 120,
    height: 40,
    start: Date.now(),
    term: 'xterm-256color',
    title: label,
  };
  const tickMs = 50;
  const perTick = Math.round((rateKiB * 1024 * tickMs) / 1000);
  const screen = outputText(6000, 0).text;
  const recorders = [];
  const timers = [];
  let offered = 0;
  let accepted = 0;
  for (let i = 0; i < sessions; i++) {
    const sid = `${label}-${String(i).padStart(4, '0')}-${randomBytes(4).toString('hex')}`;
    const recorder = new SessionRecorder(store.create(sid), header, {
      now: Date.now,
      onFailure: (reason) => failures.push(reason),
    });
    recorders.push(recorder);
    let line = i * 1_000_000;
    let lastKeyframe = Date.now();
    // Staggered, so the sessions' ticks spread over the interval.
    const start = setTimeout(
      () => {
        timers.push(
          setInterval(() => {
            offered += perTick;
            if (recorder.behind) return;
            const out = outputText(perTick, line);
            line = out.next;
            recorder.output(Buffer.from(out.text));
            accepted += perTick;
            if (Date.now() - lastKeyframe >= 5000) {
              lastKeyframe = Date.now();
              recorder.keyframe(recorder.position(), { w: 120, h: 40 }, screen);
            }
          }, tickMs),
        );
      },
      (i * tickMs) / sessions,
    );
    timers.push(start);
  }
  await sleep(1000);
  const snapshot = async () => ({
    at: performance.now(),
    cpu: process.cpuUsage(),
    offered,
    accepted,
    ...(await sample?.()),
  });
  const first = await snapshot();
  await sleep(seconds * 1000);
  const last = await snapshot();
  for (const timer of timers) clearInterval(timer);
  const closing = performance.now();
  await Promise.all(recorders.map((recorder) => recorder.close(['bench'])));
  const closeMs = performance.now() - closing;
  const windowS = (last.at - first.at) / 1000;
  const cpuMs = (last.cpu.user + last.cpu.system - first.cpu.user - first.cpu.system) / 1000;
  return { first, last, windowS, cpuMs, closeMs, failures };
}

async function writeLoad(swift, bucket, dir, admin) {
  const { DirRecordingStore } = await load('modules/recordings/recording-store.js');
  const { SharedRecordingStore } = await load('modules/recordings/shared-recording-store.js');
  const { SpooledBlobStore } = await load('blobs/spool/spooled-blob-store.js');
  const { PostgresBlobSpool } = await load('blobs/spool/blob-spool.postgres.js');
  const { S3BlobStore } = await load('blobs/s3/s3-blob-store.js');

  // The spool's connections carry a name of their own: their backends' CPU is what we count.
  const application = `postern-bench-ha-${randomBytes(3).toString('hex')}`;
  const spoolUrl = new URL(pgUrl);
  spoolUrl.searchParams.set('application_name', application);
  const spooled = new SpooledBlobStore(
    new S3BlobStore(s3Location(swift, bucket, 'load/')),
    new PostgresBlobSpool({ url: spoolUrl.toString(), schema }),
    { owner: 'bench-load', flushIntervalMs: 1000 },
  );
  let s3Written = 0;
  const shared = new SharedRecordingStore(spooled, [], (bytes) => (s3Written += bytes));
  await shared.init();

  /** CPU ms of the spool's backends, kept per pid as they come and go. */
  const backendCpu = new Map();
  const sampleBackends = async () => {
    const { rows } = await admin.query(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1',
      [application],
    );
    for (const { pid } of rows) {
      const ms = processCpuMs(pid);
      if (ms !== undefined)
        backendCpu.set(pid, { ...(backendCpu.get(pid) ?? { from: ms }), now: ms });
    }
  };
  const sampler = setInterval(() => void sampleBackends().catch(() => {}), 500);
  const spoolRows = async () => {
    const { rows } = await admin.query(
      `SELECT count(*)::bigint AS n, coalesce(sum(length(data)), 0)::bigint AS bytes
       FROM "${schema}".blob_spool_pieces WHERE name LIKE 's3-%'`,
    );
    return { rows: Number(rows[0].n), spoolBytes: Number(rows[0].bytes) };
  };
  const pgCpu = async () => {
    await sampleBackends();
    let sum = 0;
    for (const { now } of backendCpu.values()) sum += now;
    return { pgCpuMs: sum };
  };

  log(`load: ${sessions} sessions at ${rateKiB} KiB/s each into S3 through the PostgreSQL spool`);
  const viaS3 = await flood(shared, 's3', {
    sample: async () => ({ written: s3Written, ...(await spoolRows()), ...(await pgCpu()) }),
  });
  // Every recording ended: they are uploaded from the spool now, then removed from it.
  const uploading = performance.now();
  for (;;) {
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM "${schema}".blob_spool WHERE name LIKE 's3-%'`,
    );
    if (rows[0].n === 0 || performance.now() - uploading > 120_000) break;
    await sleep(200);
  }
  const uploadMs = performance.now() - uploading;
  clearInterval(sampler);
  await shared.close();

  log(`load: the same into a local directory`);
  let dirWritten = 0;
  const local = new DirRecordingStore(
    path.join(dir, 'load-recordings'),
    [],
    (bytes) => (dirWritten += bytes),
  );
  await local.init();
  const viaDir = await flood(local, 'dir', { sample: async () => ({ written: dirWritten }) });

  const rate = (result, key) => (result.last[key] - result.first[key]) / result.windowS;
  const s3Rate = rate(viaS3, 'written');
  const dirRate = rate(viaDir, 'written');
  const rowsPerS = rate(viaS3, 'rows');
  const pgCpuPct = (rate(viaS3, 'pgCpuMs') / 1000) * 100;
  const failures = [...viaS3.failures, ...viaDir.failures];
  return [
    {
      figure: `write: ${sessions} sessions, recorded MB/s`,
      value: `${fmt(s3Rate / 1e6, 2)} MB/s`,
      baseline: `${fmt(dirRate / 1e6, 2)} MB/s`,
      compare: `${fmt(s3Rate / dirRate, 2)}×`,
      target: '',
      verdict: failures.length ? `${failures.length} FAILED` : '',
    },
    {
      figure: 'write: output taken, MB/s (offered)',
      value: `${fmt(rate(viaS3, 'accepted') / 1e6, 2)} (${fmt(rate(viaS3, 'offered') / 1e6, 2)})`,
      baseline: `${fmt(rate(viaDir, 'accepted') / 1e6, 2)} (${fmt(rate(viaDir, 'offered') / 1e6, 2)})`,
      compare: '',
      target: '',
      verdict: '',
    },
    {
      figure: 'write: spool rows/s (MB/s into PG)',
      value: `${fmt(rowsPerS, 0)} (${fmt(rate(viaS3, 'spoolBytes') / 1e6, 2)})`,
      baseline: '-',
      compare: `${viaS3.last.rows} rows`,
      target: '',
      verdict: '',
    },
    {
      figure: 'write: PostgreSQL CPU (spool backends)',
      value: `${fmt(pgCpuPct, 0)} %`,
      baseline: '0 %',
      compare: `${backendCpu.size} backends`,
      target: '',
      verdict: '',
    },
    {
      figure: 'write: this process CPU (recorders)',
      value: `${fmt((viaS3.cpuMs / 1000 / viaS3.windowS) * 100, 0)} %`,
      baseline: `${fmt((viaDir.cpuMs / 1000 / viaDir.windowS) * 100, 0)} %`,
      compare: '',
      target: '',
      verdict: '',
    },
    {
      figure: 'write: sessions ended → all uploaded',
      value: `${fmt((viaS3.closeMs + uploadMs) / 1000, 1)} s`,
      baseline: `${fmt(viaDir.closeMs / 1000, 1)} s`,
      compare: 'end + upload vs end',
      target: '',
      verdict: '',
    },
  ];
}

// ---------------------------------------------------------------------------------------------

const admin = new pg.Pool({ connectionString: pgUrl, max: 2 });
try {
  await admin.query('SELECT 1');
} catch (error) {
  console.error(`This bench needs PostgreSQL at ${pgUrl}: ${error.message}`);
  process.exit(2);
}
const dir = await mkdtemp(path.join(tmpdir(), 'postern-bench-ha-'));
const bucket = `bench-ha-${randomBytes(4).toString('hex')}`;
const rows = [];
const errors = [];
let swift;
const began = performance.now();
try {
  log('starting Swift');
  swift = await startSwift();
  await swift.createBucket(bucket);
  const figures = {
    failover: () => failover(swift, bucket, dir, admin),
    seek: () => seek(swift, bucket, dir),
    load: () => writeLoad(swift, bucket, dir, admin),
  };
  for (const [name, measure] of Object.entries(figures)) {
    if (!only.has(name)) continue;
    try {
      rows.push(...(await measure()));
    } catch (error) {
      // The other figures are still worth having: this one is reported as not measured.
      errors.push(`${name}: ${error.stack ?? error}`);
      rows.push({
        figure: `${name}: not measured`,
        value: 'error',
        baseline: '',
        compare: '',
        target: '',
        verdict: '',
      });
    }
  }
} finally {
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch((error) => {
    console.error(`could not drop schema ${schema}: ${error.message}`);
  });
  await admin.end();
  await swift?.stop();
  await rm(dir, { recursive: true, force: true });
}
printTable(rows);
console.log(
  [
    '',
    'baselines: failover, opening a session on the healthy cluster (median); seek, the same',
    "recording in a local directory; write load, the same sessions into one proxy's directory.",
    `S3 is Swift on loopback (no network latency). Load: ${sessions} sessions × ${rateKiB} KiB/s for ${seconds} s each.`,
    `run took ${fmt((performance.now() - began) / 1000, 0)} s`,
  ].join('\n'),
);
for (const error of errors) console.error(`\n${error}`);
// Missed targets are reported, not failed on; a figure that could not be measured is an error.
process.exit(errors.length > 0 ? 1 : 0);
