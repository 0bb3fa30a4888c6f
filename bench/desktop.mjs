#!/usr/bin/env node
// Desktop sessions (docs/desktops.md) as a person sees them: noVNC in Debian's Chromium drawing a
// real TigerVNC Xvnc, through Postern and, as the baseline of the same run, through a bare
// WebSocket↔TCP relay written here (noVNC signs in to Xvnc itself). Targets are printed, never
// asserted: the exit code is 0 unless the bench itself breaks.
// Functions passed to page.evaluate run in the page, with its globals:
/* global window, document */
import { spawn } from 'node:child_process';
import { createReadStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { connect as tcpConnect, createServer as createTcpServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createWebSocketStream, WebSocketServer } from 'ws';
import { launchChromium } from './support/cdp.mjs';
import {
  assertBuilt,
  createRole,
  createWebSession,
  repoRoot,
  startPostern,
} from './support/postern.mjs';
import { fmt, median, printTable, quantile, verdict } from './support/report.mjs';

const usage = `Usage: npm run build && npm run bench:desktop [-- options]

Runs the BUILT server (packages/server/dist): build first. Everything listens on 127.0.0.1
(the pages are on http://localhost). It starts TigerVNC's Xvnc (1280×800, depth 24, VNC
Authentication), \`postern start\` (temp data dir, plain HTTP) with the Xvnc as a desktop, a web
session whose role reaches it, headless Debian Chromium (bare CDP, as bench/support/cdp.mjs
explains) and a page running noVNC (@novnc/novnc, the console's own copy). Each figure runs
through Postern (the connect socket, its in-band bearer, then the socket handed to noVNC as the
console does) and through the bare relay, one connection at a time:

  1  latency: the page asks the bench (a control WebSocket) for \`xsetroot -solid <colour>\`
     on the Xvnc display and watches the screen's middle pixel until it has the colour: ms
     from the ask to the first animation frame (rAF) showing it, p50 and p95 of --samples
                                                  target p50 <= relay + 10 ms
  2  frames per second of a full-screen animation (a Tk canvas, python3-tk, scrolling a page
     of text at 1280×800, --source-fps a second, a frame number drawn in its corner): distinct
     animation frames noVNC drew per second over --fps-seconds
                                                  target >= 0.9x relay
  3  the recording of the Postern session of (2), held --record-seconds with the animation
     running: MB (10^6 bytes) of its blobs per active minute
                                                  target <= 20 MB

Options:
  --samples 40         latency samples per path (after 3 unrecorded warm-up ones)
  --fps-seconds 10     counting time of (2), after 2 s of warm-up
  --record-seconds 60  how long the Postern session of (2) and (3) is held in all
  --source-fps 60      frames a second the animation draws (0: as fast as it can)
  --no-recording       the role turns desktop recording off (record_session: {desktop: false}),
                       so Postern relays without decoding the screen, to tell the relay's cost
                       from the recorder's and the decoder's; (3) is not measured
  --cpu-prof DIR       run postern with node --cpu-prof, the profile written to DIR at exit
                       (bench/profile-summary.mjs, or any .cpuprofile reader)
  -h, --help           this text`;

const { values: opts } = parseArgs({
  options: {
    samples: { type: 'string', default: '40' },
    'fps-seconds': { type: 'string', default: '10' },
    'record-seconds': { type: 'string', default: '60' },
    'source-fps': { type: 'string', default: '60' },
    'no-recording': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help) {
  console.log(usage);
  process.exit(0);
}
const samples = Number(opts.samples);
const fpsSeconds = Number(opts['fps-seconds']);
const recordSeconds = Math.max(Number(opts['record-seconds']), fpsSeconds + 4);
const sourceFps = Number(opts['source-fps']);
const recordingOff = opts['no-recording'];
if (!(samples > 0) || !(fpsSeconds > 0) || !(recordSeconds > 0) || !(sourceFps >= 0)) {
  console.error(usage);
  process.exit(2);
}
assertBuilt();

const W = 1280;
const H = 800;
const vncPassword = 'bench-42';
const warmUps = 3;
const MB = 1_000_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const signedMs = (ms) => `${ms >= 0 ? '+' : ''}${fmt(ms)} ms`;

const started = Date.now();
const log = (message) =>
  console.error(`[${((Date.now() - started) / 1000).toFixed(0)}s] ${message}`);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(
  `Desktop bench: ${cpus().length} CPUs, node ${process.version}, load average ${load()} at start`,
);

const dir = await mkdtemp(path.join(tmpdir(), 'postern-bench-desktop-'));
const cleanups = [() => rm(dir, { recursive: true, force: true })];
let cleaning;
const cleanUp = () =>
  (cleaning ??= (async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  })());
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => void cleanUp().then(() => process.exit(130)));
}
// An error thrown in a callback (a server's, a child's) still ends every process and temp dir.
process.once('uncaughtException', (error) => {
  console.error(error);
  void cleanUp().then(() => process.exit(1));
});

const rows = [];
const notes = [];
try {
  log('starting Xvnc');
  const xvnc = await startXvnc(path.join(dir, 'xvnc'));
  cleanups.push(() => xvnc.stop());

  log('starting the bench server (page, noVNC, bare relay, control socket)');
  const bench = await startBenchServer(xvnc);
  cleanups.push(() => bench.stop());

  log('starting postern');
  const postern = await startPostern({
    dataDir: path.join(dir, 'postern'),
    extraNodeArgs: opts['cpu-prof']
      ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts['cpu-prof'])}`]
      : [],
  });
  cleanups.push(() => postern.stop());
  const desktopFile = path.join(dir, 'desktop.yaml');
  await writeFile(
    desktopFile,
    [
      'kind: desktop',
      'metadata:',
      '  name: bench-xvnc',
      '  labels: {env: bench}',
      'spec:',
      `  addr: 127.0.0.1:${xvnc.port}`,
      '  protocol: vnc',
      '  os: Linux',
      `  vnc_password: ${vncPassword}`,
      '',
    ].join('\n'),
  );
  await postern.cli(['create', '-f', desktopFile]);
  const roleAllow = ['windows_desktop_labels: {env: bench}', 'windows_desktop_logins: [bench]'];
  if (recordingOff) {
    // createRole writes `allow` only; the option sits beside it in the role's spec.
    const roleFile = path.join(postern.dataDir, 'role-bench-desktop.yaml');
    await writeFile(
      roleFile,
      [
        ...['kind: role', 'version: v7', 'metadata:', '  name: bench-desktop', 'spec:'],
        ...['  options:', '    record_session: {desktop: false}', '  allow:'],
        ...roleAllow.map((line) => `    ${line}`),
        '',
      ].join('\n'),
    );
    await postern.cli(['create', '-f', roleFile]);
  } else {
    await createRole(postern, 'bench-desktop', roleAllow);
  }
  const session = await createWebSession(postern, 'bench', ['bench-desktop']);
  const recordingsDir = path.join(postern.dataDir, 'recordings');

  log('launching Chromium');
  const browser = await launchChromium({
    executable: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    width: W,
    height: H,
    args: [
      // playwright.config.ts's flags…
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // …and those Playwright adds to every launch, so a tab's frames are never throttled.
      '--disable-background-timer-throttling',
      '--disable-backgrounding-occluded-windows',
      '--disable-renderer-backgrounding',
    ],
  });
  cleanups.push(() => browser.close());
  await browser.setCookies([
    {
      name: '__Host-session',
      value: session.id,
      // As bench/support/browser.mjs: by domain and path Chromium takes a Secure cookie for
      // http://localhost, a secure context.
      domain: new URL(postern.url).hostname,
      path: '/',
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
    },
  ]);

  // The three ways noVNC reaches the Xvnc.
  const connectUrl = (base) => {
    const query = new URLSearchParams({ username: 'bench', width: W, height: H });
    return `${base}/v1/webapi/sites/-current-/desktops/bench-xvnc/connect/ws?${query}`;
  };
  const paths = {
    postern: {
      label: 'Postern',
      // The page is served at Postern's origin (intercepted in the browser, never asking
      // Postern), since the connect socket refuses pages of other origins.
      origin: postern.url,
      connect: {
        kind: 'postern',
        url: connectUrl(postern.url.replace(/^http/, 'ws')),
        token: session.bearer,
      },
    },
    relay: {
      label: 'bare relay',
      origin: bench.url,
      connect: { kind: 'relay', url: `${bench.wsUrl}/__bench/relay`, password: vncPassword },
    },
    relaySame: {
      label: "bare relay, Postern's encodings",
      origin: bench.url,
      connect: {
        kind: 'relay',
        url: `${bench.wsUrl}/__bench/relay`,
        password: vncPassword,
        sameEncodings: true,
      },
    },
  };
  const open = (name) => openViewer(browser, bench, paths[name]);

  // (1) latency, the paths taking turns in two rounds.
  const latency = { postern: [], relay: [], relaySame: [] };
  const xsetrootMs = [];
  const failures = {};
  for (let round = 0; round < 2; round++) {
    for (const name of Object.keys(latency)) {
      if (failures[name]) continue;
      const count = round === 0 ? Math.ceil(samples / 2) : Math.floor(samples / 2);
      log(`(1) round ${round + 1}/2: ${count} colour changes through ${paths[name].label}`);
      try {
        const viewer = await open(name);
        try {
          bench.xsetrootRuns.length = 0;
          const measured = await viewer.page.evaluate((arg) => window.bench.latency(arg), {
            samples: count,
            warmUps,
            control: `${bench.wsUrl}/__bench/control`,
          });
          latency[name].push(...measured);
          xsetrootMs.push(...bench.xsetrootRuns.slice(warmUps));
        } finally {
          await viewer.close();
        }
      } catch (error) {
        failures[name] = error.message;
        notes.push(`(1) ${paths[name].label} failed: ${error.message}`);
      }
    }
  }
  const q = (name, key, p) =>
    quantile(
      latency[name].map((s) => s[key]).filter((v) => Number.isFinite(v)),
      p,
    );
  const lost = (name) => latency[name].filter((s) => !Number.isFinite(s.frame)).length;
  if (latency.postern.length && latency.relay.length) {
    const delta = q('postern', 'frame', 0.5) - q('relay', 'frame', 0.5);
    rows.push({
      figure: `(1) change → canvas, p50 ms (${latency.postern.length} samples)`,
      value: fmt(q('postern', 'frame', 0.5)),
      baseline: `${fmt(q('relay', 'frame', 0.5))} relay`,
      compare: signedMs(delta),
      target: '<= relay + 10 ms',
      verdict: verdict(delta <= 10),
    });
    rows.push({
      figure: '(1) change → canvas, p95 ms',
      value: fmt(q('postern', 'frame', 0.95)),
      baseline: `${fmt(q('relay', 'frame', 0.95))} relay`,
      compare: signedMs(q('postern', 'frame', 0.95) - q('relay', 'frame', 0.95)),
      target: '(context)',
      verdict: '',
    });
    rows.push({
      figure: '    drawn into the canvas (before the frame), p50 ms',
      value: fmt(q('postern', 'drawn', 0.5)),
      baseline: `${fmt(q('relay', 'drawn', 0.5))} relay`,
      compare: signedMs(q('postern', 'drawn', 0.5) - q('relay', 'drawn', 0.5)),
      target: '(context)',
      verdict: '',
    });
    if (latency.relaySame.length) {
      rows.push({
        figure: "    relay, Postern's encodings: p50 / p95 ms",
        value: '',
        baseline: `${fmt(q('relaySame', 'frame', 0.5))} / ${fmt(q('relaySame', 'frame', 0.95))}`,
        compare: '',
        target: '(context)',
        verdict: '',
      });
    }
    rows.push({
      figure: '    of which xsetroot, spawn to exit, median ms',
      value: fmt(median(xsetrootMs)),
      baseline: '(all paths)',
      compare: '',
      target: '(context)',
      verdict: '',
    });
    for (const name of Object.keys(latency)) {
      if (lost(name)) notes.push(`(1) ${paths[name].label}: ${lost(name)} changes never shown`);
    }
  }

  // (2) frames per second of a full-screen animation, and (3) the recording of that session.
  log(`(2) starting the animation (${sourceFps || 'as many as it can'} frames a second)`);
  const animation = await startAnimation(xvnc, path.join(dir, 'animation.py'));
  cleanups.push(() => animation.stop());
  await sleep(1000);
  const fps = {};
  for (const name of ['relay', 'relaySame', 'postern']) {
    const recorded = name === 'postern' && !recordingOff;
    log(
      `(2) ${fpsSeconds} s through ${paths[name].label}` +
        (recorded ? `, held ${recordSeconds} s in all for (3)` : ''),
    );
    const before = recorded ? await desktopBlobs(recordingsDir) : undefined;
    try {
      const viewer = await open(name);
      const connectedAt = performance.now();
      // The recording's events blob as it grows, for its rate once its start is behind it.
      const growth = [];
      let sampling = recorded;
      const sampler = (async () => {
        while (sampling) {
          growth.push({ t: performance.now(), bytes: await blobBytes(recordingsDir, before) });
          await sleep(1000);
        }
      })();
      try {
        await sleep(2000);
        const sourceBefore = animation.frames();
        const counted = await viewer.page.evaluate((s) => window.bench.fps(s), fpsSeconds);
        const sourceAfter = animation.frames();
        fps[name] = {
          ...counted,
          source: (sourceAfter.n - sourceBefore.n) / (sourceAfter.t - sourceBefore.t),
        };
        if (recorded) {
          await sleep(Math.max(0, recordSeconds * 1000 - (performance.now() - connectedAt)));
          fps[name].growth = growth.filter((g) => g.t - connectedAt >= 12_000);
        }
      } finally {
        sampling = false;
        await sampler;
        await viewer.close();
      }
      if (recorded) fps[name].recording = await sealedRecording(recordingsDir, before);
    } catch (error) {
      notes.push(`(2) ${paths[name].label} failed: ${error.message}`);
    }
  }
  if (fps.postern && fps.relay) {
    const ratio = fps.postern.framesPerSecond / fps.relay.framesPerSecond;
    rows.push({
      figure: `(2) animation frames drawn per second (${fpsSeconds} s)`,
      value: fmt(fps.postern.framesPerSecond),
      baseline: `${fmt(fps.relay.framesPerSecond)} relay`,
      compare: `${fmt(ratio, 2)}×`,
      target: '>= 0.9x relay',
      verdict: verdict(ratio >= 0.9),
    });
    if (fps.relaySame) {
      rows.push({
        figure: "    relay, Postern's encodings",
        value: '',
        baseline: `${fmt(fps.relaySame.framesPerSecond)}`,
        compare: `${fmt(fps.postern.framesPerSecond / fps.relaySame.framesPerSecond, 2)}×`,
        target: '(context)',
        verdict: '',
      });
    }
    rows.push({
      figure: '    the animation drew, frames/s',
      value: fmt(fps.postern.source),
      baseline: `${fmt(fps.relay.source)} relay`,
      compare: '',
      target: '(context)',
      verdict: '',
    });
    rows.push({
      figure: '    screen updates (FramebufferUpdate) per second',
      value: fmt(fps.postern.updatesPerSecond),
      baseline: `${fmt(fps.relay.updatesPerSecond)} relay`,
      compare: '',
      target: '(context)',
      verdict: '',
    });
    rows.push({
      figure: '    animation frames between two drawn, mean',
      value: fmt(fps.postern.advancedPerFrame, 2),
      baseline: `${fmt(fps.relay.advancedPerFrame, 2)} relay`,
      compare: '',
      target: '(context)',
      verdict: '',
    });
  }
  const recording = fps.postern?.recording;
  if (recording) {
    const perMinute = (recording.bytes / (recording.durationMs / 1000)) * 60;
    const { growth } = fps.postern;
    const steady =
      growth.length >= 5
        ? ((growth.at(-1).bytes - growth[0].bytes) / ((growth.at(-1).t - growth[0].t) / 1000)) * 60
        : NaN;
    rows.push({
      figure: `(3) recording, MB per active minute (${fmt(recording.durationMs / 1000, 0)} s)`,
      value: fmt(perMinute / MB),
      baseline: `${fmt(steady / MB)} past 12 s`,
      compare: `${fmt(recording.writes / (recording.durationMs / 1000))} writes/s`,
      target: '<= 20 MB',
      verdict: verdict(perMinute / MB <= 20),
    });
  } else if (fps.postern && !recordingOff) {
    notes.push('(3) no sealed recording of the Postern session was found');
  }
} finally {
  await cleanUp();
}
console.log('');
printTable(rows);
for (const note of notes) console.log(note);
console.log(`load average ${load()} at the end`);
console.log(`
(1) runs from the page's ask on its control socket until the first requestAnimationFrame
    callback whose canvas has the colour, on the page's clock alone. It holds the ask's trip to
    the bench, xsetroot's start and its X request, Xvnc's update, the path (Postern's relay and
    its parsing and recording, or the bare relay), noVNC's decoding and up to one frame (16.7 ms)
    of waiting for the next rAF; "drawn" stops at the moment noVNC drew it into the canvas.
    The same costs are in both columns but the path and the encodings: through Postern noVNC
    gets Raw, CopyRect and ZRLE (with Fence and ContinuousUpdates); through the bare relay it
    talks TigerVNC's own way (Tight with JPEG too). The "Postern's encodings" rows keep noVNC
    to the list Postern passes on, over the bare relay, to tell the two apart.
(2) counts distinct frame numbers (8 black or white squares the animation draws in its corner)
    in noVNC's canvas after each FramebufferUpdate it draws: animation frames that reached the
    canvas, not browser paints. Everything shares ${cpus().length} CPUs: Xvnc, the animation, Postern
    and Chromium. Postern records this session as it would any other.
(3) the recording's three blobs over its sealed duration (the session of (2), animation all
    along); "past 12 s" is the rate of the events blob once the start (a keyframe and the
    budget's 1 MB saved up) is behind it.`);

/** TigerVNC's Xvnc as packages/server/src/testing/xvnc.testkit.ts starts it, 1280×800. */
async function startXvnc(xvncDir) {
  await mkdir(xvncDir, { recursive: true });
  const passwordFile = path.join(xvncDir, 'passwd');
  await writeFile(passwordFile, await runTool('vncpasswd', ['-f'], `${vncPassword}\n`));
  for (let attempt = 0; attempt < 5; attempt++) {
    const display = 100 + Math.floor(Math.random() * 800);
    if (existsSync(`/tmp/.X${display}-lock`) || existsSync(`/tmp/.X11-unix/X${display}`)) continue;
    const port = await freePort();
    const child = spawn(
      '/usr/bin/Xvnc',
      [
        `:${display}`,
        ...['-geometry', `${W}x${H}`, '-depth', '24'],
        ...['-rfbport', String(port), '-localhost', '-interface', '127.0.0.1'],
        ...['-nolisten', 'tcp', '-desktop', 'postern-bench'],
        ...['-SecurityTypes', 'VncAuth', '-PasswordFile', passwordFile],
      ],
      { cwd: xvncDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => {
      child.once('exit', resolve);
      child.once('error', (error) => {
        output += `cannot run /usr/bin/Xvnc: ${error.message}\n`;
        resolve();
      });
    });
    let running = true;
    void exited.then(() => (running = false));
    const deadline = Date.now() + 15_000;
    while (running && Date.now() < deadline && !(await canConnect(port))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!running) {
      if (/already active|Cannot establish any listening sockets/.test(output)) continue;
      throw new Error(`Xvnc exited:\n${output}`);
    }
    if (Date.now() >= deadline) {
      child.kill('SIGKILL');
      throw new Error(`Xvnc did not listen:\n${output}`);
    }
    const env = { ...process.env, DISPLAY: `:${display}`, HOME: xvncDir };
    return {
      port,
      display,
      env,
      async stop() {
        if (running) child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      },
    };
  }
  throw new Error('Xvnc found no free display');
}

function runTool(command, args, input) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    let err = '';
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`${command}: ${err}`)),
    );
    child.stdin.end(input);
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createTcpServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = tcpConnect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * The bench's own server on 127.0.0.1: the page and noVNC's files under /__bench/, the bare
 * relay (a WebSocket piped to a TCP connection to the Xvnc, both ways, nothing read) and the
 * control socket, where the page asks for `xsetroot -solid <colour>`.
 */
async function startBenchServer(xvnc) {
  const require = createRequire(path.join(repoRoot, 'packages/web/package.json'));
  // The package exports core/rfb.js only: its directory is two levels up.
  const novncDir = path.dirname(path.dirname(require.resolve('@novnc/novnc')));
  const types = { '.js': 'text/javascript', '.html': 'text/html', '.json': 'application/json' };
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (url.pathname === '/__bench/desktop.html') {
      res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' });
      return res.end(pageHtml('./'));
    }
    const rest = url.pathname.startsWith('/__bench/novnc/')
      ? path.normalize(url.pathname.slice('/__bench/novnc/'.length))
      : undefined;
    const file = rest && !rest.startsWith('..') ? path.join(novncDir, rest) : undefined;
    if (!file || !existsSync(file)) {
      res.writeHead(404);
      return res.end();
    }
    res.writeHead(200, {
      'content-type': types[path.extname(file)] ?? 'application/octet-stream',
      'access-control-allow-origin': '*',
    });
    createReadStream(file).pipe(res);
  });
  const relay = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const control = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const sockets = new Set();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (req, socket, head) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    const wss = { '/__bench/relay': relay, '/__bench/control': control }[pathname];
    if (!wss) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
  });
  relay.on('connection', (ws) => {
    const browserSide = createWebSocketStream(ws);
    const desktop = tcpConnect(xvnc.port, '127.0.0.1');
    desktop.setNoDelay(true);
    const end = () => {
      browserSide.destroy();
      desktop.destroy();
    };
    browserSide.on('error', end);
    desktop.on('error', end);
    browserSide.pipe(desktop);
    desktop.pipe(browserSide);
  });
  const xsetrootRuns = [];
  control.on('connection', (ws) => {
    ws.on('message', (data) => {
      const { solid } = JSON.parse(data.toString());
      if (!/^#[0-9a-f]{6}$/.test(solid)) return;
      const begin = performance.now();
      const child = spawn('xsetroot', ['-solid', solid], { env: xvnc.env, stdio: 'ignore' });
      child.once('exit', () => xsetrootRuns.push(performance.now() - begin));
      child.once('error', () => ws.close(1011, 'cannot run xsetroot'));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://localhost:${port}`,
    wsUrl: `ws://localhost:${port}`,
    xsetrootRuns,
    async stop() {
      for (const ws of [...relay.clients, ...control.clients]) ws.terminate();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A tab at `origin`/__bench/desktop.html, noVNC connected through `via`. At the bench's own
 * origin the page is the bench server's; at another (Postern's: its connect socket refuses pages
 * of other origins) the tab opens that URL (Postern's 404, a JSON document) and the page is
 * built into it by evaluation, CSP bypassed, noVNC's modules imported from the bench server
 * (CORS allows it). (A document answered through CDP's Fetch domain opens no WebSocket at all.)
 */
async function openViewer(browser, benchServer, via) {
  const page = await browser.newPage();
  const closeTab = () =>
    browser.connection.send('Target.closeTarget', { targetId: page.targetId }).catch(() => {});
  try {
    const own = via.origin === benchServer.url;
    if (!own) await page.send('Page.setBypassCSP', { enabled: true });
    await page.goto(`${via.origin}/__bench/desktop.html`);
    if (!own) await page.evaluate(buildPage, pageModule(`${benchServer.url}/__bench/`));
    await page.waitForFunction(() => window.bench !== undefined, null, { timeout: 15_000 });
    await page.bringToFront();
    await page.evaluate((arg) => window.bench.connect(arg), via.connect);
    return {
      page,
      async close() {
        await page.evaluate(() => window.bench.disconnect()).catch(() => {});
        await closeTab();
      },
    };
  } catch (error) {
    await closeTab();
    throw error;
  }
}

/** The page at the bench's origin. */
function pageHtml(base) {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>postern desktop bench</title></head>
<body><script>(${buildPage})(${JSON.stringify(pageModule(base)).replaceAll('</', '<\\/')})</script></body></html>
`;
}

/** Runs in the page: a black page holding #screen, and the bench's module. */
function buildPage(module) {
  document.body.innerHTML = '';
  document.documentElement.style.cssText = 'margin: 0; background: #000; overflow: hidden';
  document.body.style.cssText = 'margin: 0';
  const screen = document.createElement('div');
  screen.id = 'screen';
  screen.style.cssText = `width: ${module.width}px; height: ${module.height}px`;
  document.body.append(screen);
  const script = document.createElement('script');
  script.type = 'module';
  script.textContent = module.source;
  document.head.append(script);
}

/** The page's module: noVNC's ES modules, and what the bench calls in it (window.bench). */
function pageModule(base) {
  const source = `
import RFB from '${base}novnc/core/rfb.js';
import Display from '${base}novnc/core/display.js';

const W = ${W};
const H = ${H};
const screen = document.getElementById('screen');
let rfb;
let socket;
let ctx;
// What a drawn screen is checked for: a colour to wait for (latency), frame numbers (fps).
let watch;
let counting;

const pixel = (x, y) => ctx.getImageData(x, y, 1, 1).data;
const near = (data, rgb) => rgb.every((v, i) => Math.abs(data[i] - v) <= 8);
/** The animation's frame number: 8 squares of 16 px in its corner, white for a 1 bit. */
const frameNumber = () => {
  const data = ctx.getImageData(8, 8, 128, 16).data;
  let n = 0;
  for (let b = 0; b < 8; b++) {
    const at = (8 * 128 + b * 16 + 8) * 4;
    if (data[at] + data[at + 1] + data[at + 2] > 384) n |= 1 << b;
  }
  return n;
};

// Called after every FramebufferUpdate noVNC draws (a flip queued behind images is seen when
// the queue draws it).
const flip = Display.prototype.flip;
Display.prototype.flip = function (fromQueue) {
  const queued = !fromQueue && this._renderQ.length !== 0;
  flip.call(this, fromQueue);
  if (queued || !ctx) return;
  const now = performance.now();
  if (watch && watch.drawn === undefined && near(pixel(W / 2, H / 2), watch.rgb)) watch.drawn = now;
  if (counting) {
    counting.updates++;
    const n = frameNumber();
    if (n !== counting.last) {
      if (counting.last !== undefined) counting.advanced += (n - counting.last + 256) % 256;
      counting.last = n;
      counting.frames++;
    }
  }
};

const onFrame = () => {
  if (watch && watch.frame === undefined && ctx && near(pixel(W / 2, H / 2), watch.rgb)) {
    watch.frame = performance.now();
  }
  requestAnimationFrame(onFrame);
};
requestAnimationFrame(onFrame);

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Only what Postern relays (docs/desktops.md, Encodings), in noVNC's order.
const relayed = new Set([0, 1, 16, -223, -224, -239, -308, -312, -313]);

window.bench = {
  connect({ kind, url, token, password, sameEncodings }) {
    if (sameEncodings) {
      const clientEncodings = RFB.messages.clientEncodings;
      RFB.messages.clientEncodings = (sock, list) =>
        clientEncodings(sock, list.filter((e) => relayed.has(e)));
    }
    return new Promise((resolve, reject) => {
      const start = (channel, options) => {
        rfb = new RFB(screen, channel, { shared: true, ...options });
        rfb.addEventListener('connect', () => {
          ctx = screen.querySelector('canvas').getContext('2d');
          resolve();
        });
        rfb.addEventListener('disconnect', (e) => reject(new Error('disconnected, clean: ' + e.detail.clean)));
        rfb.addEventListener('securityfailure', (e) => reject(new Error('security failure: ' + e.detail.reason)));
      };
      if (kind === 'relay') return start(url, { credentials: { password } });
      // As the console (desktopConnection.ts): the bearer in the first frame, then the open
      // socket handed to noVNC in the message event that says ok.
      socket = new WebSocket(url);
      socket.binaryType = 'arraybuffer';
      socket.onopen = () => socket.send(JSON.stringify({ token }));
      socket.onclose = (e) => reject(new Error('socket closed: ' + e.code + ' ' + e.reason));
      socket.onmessage = (e) => {
        if (typeof e.data !== 'string') return reject(new Error('RFB before the answer'));
        const answer = JSON.parse(e.data);
        if (answer.type !== 'create_session_response') return;
        if (answer.status !== 'ok') return reject(new Error(answer.message || 'refused'));
        socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
        start(socket, {});
      };
    });
  },

  /** Colour changes asked of the bench, each timed until drawn and until shown by a frame. */
  async latency({ samples, warmUps, control }) {
    const ws = new WebSocket(control);
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = () => reject(new Error('no control socket'));
    });
    const colours = ['#d02040', '#2050e0', '#30b050', '#e0c020'];
    const results = [];
    for (let i = 0; i < samples + warmUps; i++) {
      const hex = colours[i % colours.length];
      const rgb = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
      await sleep(120 + Math.random() * 60);
      watch = { rgb, start: performance.now() };
      ws.send(JSON.stringify({ solid: hex }));
      const deadline = watch.start + 5000;
      while (watch.frame === undefined && performance.now() < deadline) await sleep(5);
      if (i >= warmUps) {
        results.push({
          frame: watch.frame === undefined ? null : watch.frame - watch.start,
          drawn: watch.drawn === undefined ? null : watch.drawn - watch.start,
        });
      }
      watch = undefined;
    }
    ws.close();
    return results;
  },

  /** Animation frames drawn over the next seconds. */
  async fps(seconds) {
    counting = { updates: 0, frames: 0, advanced: 0, last: undefined };
    const begin = performance.now();
    await sleep(seconds * 1000);
    const elapsed = (performance.now() - begin) / 1000;
    const { updates, frames, advanced } = counting;
    counting = undefined;
    return {
      framesPerSecond: frames / elapsed,
      updatesPerSecond: updates / elapsed,
      advancedPerFrame: frames > 1 ? advanced / (frames - 1) : NaN,
    };
  },

  disconnect() {
    rfb?.disconnect();
  },
};
`;
  return { source, width: W, height: H };
}

/**
 * A full-screen animation on the Xvnc display: python3's Tk, a borderless 1280×800 canvas
 * scrolling a page of text lines and coloured bars 4 px a frame (Tk draws each frame into a
 * pixmap and copies it to the window: the whole screen changes each frame), its frame number
 * in 8 squares in the corner; it prints its frame count every second.
 */
async function startAnimation(xvnc, file) {
  await writeFile(file, animationPy());
  const child = spawn('python3', [file, String(W), String(H), String(sourceFps)], {
    env: xvnc.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let last = { n: 0, t: 0 };
  let stderr = '';
  let buffered = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    for (const line of lines) {
      const [n, t] = line.split(' ').map(Number);
      if (Number.isFinite(n) && Number.isFinite(t)) last = { n, t };
    }
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 15_000;
  while (last.n === 0) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the animation (python3 with Tk) did not start: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    /** Its frame count and its clock (s) at its last report. */
    frames: () => last,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function animationPy() {
  return `import random, sys, time, tkinter as tk
W, H, rate = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
root = tk.Tk()
root.overrideredirect(True)
root.geometry(f'{W}x{H}+0+0')
c = tk.Canvas(root, width=W, height=H, highlightthickness=0, bg='white')
c.pack()
rnd = random.Random(7)
words = 'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor'.split()
LINE, WRAP = 20, 400
c.create_rectangle(0, 0, 200, H, fill='#e8eaf0', outline='')
for i in range((H + WRAP) // LINE):
    y = i * LINE
    if i % 12 == 0:
        colour = rnd.choice(['#3a6ea5', '#a53a3a', '#3aa55a'])
        c.create_rectangle(240, y + 2, 240 + rnd.randint(200, 900), y + 18, fill=colour,
                           outline='', tags='doc')
    else:
        text = ' '.join(rnd.choice(words) for _ in range(rnd.randint(6, 16)))
        c.create_text(240, y + 10, anchor='w', text=text, fill='#202028',
                      font=('DejaVu Sans', 11), tags='doc')
marks = [c.create_rectangle(8 + b * 16, 8, 24 + b * 16, 24, outline='', fill='black')
         for b in range(8)]
n, offset = 0, 0
started = time.monotonic()
reported = started
def step():
    global n, offset, reported
    n += 1
    offset = (offset + 4) % WRAP
    c.move('doc', 0, -4 if offset else WRAP - 4)
    for b, m in enumerate(marks):
        c.itemconfigure(m, fill='white' if (n >> b) & 1 else 'black')
    c.update_idletasks()
    now = time.monotonic()
    if now - reported >= 0.5:
        print(n, round(now - started, 3), flush=True)
        reported = now
    delay = started + n / rate - time.monotonic() if rate > 0 else 0
    root.after(max(1, int(delay * 1000)), step)
root.after(50, step)
root.mainloop()
`;
}

/** The desktop recordings' events blobs in the recordings dir, by name. */
async function desktopBlobs(recordingsDir) {
  const names = await readdir(recordingsDir).catch(() => []);
  return new Set(names.filter((name) => name.endsWith('.desktop.events')));
}

/** The bytes of the events blobs that were not there `before`. */
async function blobBytes(recordingsDir, before) {
  let bytes = 0;
  for (const name of await desktopBlobs(recordingsDir)) {
    if (before.has(name)) continue;
    bytes += (await stat(path.join(recordingsDir, name)).catch(() => ({ size: 0 }))).size;
  }
  return bytes;
}

/** The recording that started after `before`, once sealed: its blobs' bytes and its seal. */
async function sealedRecording(recordingsDir, before) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const fresh = [...(await desktopBlobs(recordingsDir))].filter((name) => !before.has(name));
    if (fresh.length > 1) throw new Error(`${fresh.length} new recordings, expected one`);
    const sid = fresh[0]?.replace(/\.desktop\.events$/, '');
    const index = sid && path.join(recordingsDir, `${sid}.desktop.index.json`);
    if (index && existsSync(index)) {
      const seal = JSON.parse(await readFile(index, 'utf8'));
      let bytes = 0;
      for (const suffix of ['.desktop.events', '.desktop.chunks.jsonl', '.desktop.index.json']) {
        bytes += (await stat(path.join(recordingsDir, `${sid}${suffix}`))).size;
      }
      return {
        bytes,
        durationMs: seal.durationMs,
        writes: seal.integrity.chunks,
        keyframes: seal.keyframes.length,
      };
    }
    if (Date.now() > deadline) throw new Error('the recording was not sealed within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
