#!/usr/bin/env node
// Desktop sessions (docs/desktops.md) as a person sees them: noVNC in Debian's Chromium drawing a
// real TigerVNC Xvnc, through Postern and, as the baseline of the same run, through a bare
// WebSocket↔TCP relay written here (noVNC signs in to Xvnc itself). Targets are printed, never
// asserted: the exit code is 0 unless the bench itself breaks.
// Functions passed to page.evaluate run in the page, with its globals:
/* global window */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { launchChromium } from './support/cdp.mjs';
import { blobBytes, desktopBlobs, sealedRecording } from './support/desktop-recordings.mjs';
import { startAnimation, startXvnc } from './support/desktop-rig.mjs';
import { openViewer, startBenchServer } from './support/desktop-viewer.mjs';
import { assertBuilt, createRole, createWebSession, startPostern } from './support/postern.mjs';
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
const screen = { width: W, height: H, password: vncPassword };
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
  const xvnc = await startXvnc(path.join(dir, 'xvnc'), screen);
  cleanups.push(() => xvnc.stop());

  log('starting the bench server (page, noVNC, bare relay, control socket)');
  const bench = await startBenchServer(xvnc, screen);
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
    relayZrle: {
      label: 'bare relay, ZRLE only',
      origin: bench.url,
      connect: {
        kind: 'relay',
        url: `${bench.wsUrl}/__bench/relay`,
        password: vncPassword,
        zrleOnly: true,
      },
    },
  };
  const open = (name) => openViewer(browser, bench, paths[name]);

  // (1) latency, the paths taking turns in two rounds.
  const latency = { postern: [], relay: [], relayZrle: [] };
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
    if (latency.relayZrle.length) {
      rows.push({
        figure: '    relay, ZRLE only: p50 / p95 ms',
        value: '',
        baseline: `${fmt(q('relayZrle', 'frame', 0.5))} / ${fmt(q('relayZrle', 'frame', 0.95))}`,
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
  const animation = await startAnimation(xvnc, path.join(dir, 'animation.py'), screen, sourceFps);
  cleanups.push(() => animation.stop());
  await sleep(1000);
  const fps = {};
  for (const name of ['relay', 'relayZrle', 'postern']) {
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
    if (fps.relayZrle) {
      rows.push({
        figure: '    relay, ZRLE only',
        value: '',
        baseline: `${fmt(fps.relayZrle.framesPerSecond)}`,
        compare: `${fmt(fps.postern.framesPerSecond / fps.relayZrle.framesPerSecond, 2)}×`,
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
    The same costs are in both columns but the path: through Postern noVNC gets Raw, CopyRect,
    Tight (with JPEG) and ZRLE, with Fence and ContinuousUpdates; through the bare relay it
    talks TigerVNC's own way, which adds only encodings noVNC does not pick first here. The
    "ZRLE only" rows keep noVNC to what Postern passed on before it read Tight (Raw, CopyRect,
    ZRLE), over the bare relay: what Tight with JPEG is worth on this screen.
(2) counts distinct frame numbers (8 black or white squares the animation draws in its corner)
    in noVNC's canvas after each FramebufferUpdate it draws: animation frames that reached the
    canvas, not browser paints. Everything shares ${cpus().length} CPUs: Xvnc, the animation, Postern
    and Chromium. Postern records this session as it would any other.
(3) the recording's three blobs over its sealed duration (the session of (2), animation all
    along); "past 12 s" is the rate of the events blob once the start (a keyframe and the
    budget's 1 MB saved up) is behind it.`);
