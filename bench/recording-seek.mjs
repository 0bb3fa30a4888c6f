#!/usr/bin/env node
// Player seek on a long recording: records a one-hour, ~100 MB session through the
// built recorder (`packages/server/dist`, the code the proxy runs) with a keyframe every 5 s from
// a headless terminal, then times seeks to random times. A seek is what the player does: the
// server reads the chunk at that time (nearest keyframe, then the events after it) and sends it
// as JSON, and the player parses it, draws the keyframe on a reset terminal and replays the
// events up to the time. The terminal is @xterm/headless (the parser the browser's xterm.js
// runs; drawing happens once per frame after). The baseline, measured in the same run, is the
// reference player's way: decompress and replay everything from the start up to the time.
// Target: every seek within 300 ms.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { fmt, MiB, median, printTable, quantile, verdict } from './support/report.mjs';

const usage = `Usage: npm run build && npm run bench:recording-seek [-- --minutes 60] [--mib 100] [--seeks 40]

  --minutes  length of the recorded session (default 60)
  --mib      size of the recording (the uncompressed cast), in MiB (default 100)
  --seeks    random seeks timed (default 40); the baseline replays 3 of them
  --keep     leave the recording in place (its directory is printed)`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    mib: { type: 'string', default: '100' },
    seeks: { type: 'string', default: '40' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const minutes = Number(args.minutes);
const castBytes = Number(args.mib) * MiB;
const seeks = Number(args.seeks);
if (!(minutes > 0) || !(castBytes > 0) || !(seeks >= 1)) {
  console.error(usage);
  process.exit(2);
}

const dist = path.join(root, 'packages/server/dist/modules/recordings');
const load = (name) =>
  import(pathToFileURL(path.join(dist, name)).href).catch(() => {
    console.error(`No built recorder in ${dist}: run npm run build first.`);
    process.exit(2);
  });
const { SessionRecorder } = await load('session-recorder.js');
const { DirRecordingStore } = await load('recording-store.js');
const { readChunkAt, readChunkFrom } = await load('playback.js');
const serverRequire = createRequire(path.join(root, 'packages/server/package.json'));
const { Terminal } = serverRequire('@xterm/headless');
const { SerializeAddon } = serverRequire('@xterm/addon-serialize');

const cols = 120;
const rows = 40;
const newTerminal = (c = cols, r = rows) =>
  new Terminal({ cols: c, rows: r, scrollback: 200, allowProposedApi: true });
const written = (terminal, data) => new Promise((resolve) => terminal.write(data, resolve));

/** Output a busy shell session prints: coloured log lines, listings and a prompt. */
function* sessionOutput(castBytes, durationMs) {
  const lines = [
    (i) =>
      `\x1b[32m2026-11-22T10:${String(i % 60).padStart(2, '0')}:00Z\x1b[0m INFO  request id=${i} path=/api/v1/items/${i % 977} status=200 took=${i % 97}ms\r\n`,
    (i) => `drwxr-xr-x  2 root root  4096 Nov 22 10:00 \x1b[1;34mdir-${i % 500}\x1b[0m\r\n`,
    (i) => `\x1b[33mWARN\x1b[0m  queue depth ${i % 1000} above soft limit on worker-${i % 16}\r\n`,
    (i) =>
      `\x1b[1;32mroot@web-1\x1b[0m:\x1b[1;34m~\x1b[0m# tail -f /var/log/app.log | grep ${i % 13}\r\n`,
  ];
  const bursts = Math.ceil(durationMs / 100);
  // A cast line escapes the output as JSON (ESC becomes \u001b): aim the cast, not the output.
  const sample = lines.map((line, i) => line(i)).join('');
  const escaping = JSON.stringify(sample).length / sample.length;
  const perBurst = Math.ceil(castBytes / escaping / bursts);
  let line = 0;
  for (let burst = 0; burst < bursts; burst++) {
    let text = '';
    while (text.length < perBurst) text += lines[line % lines.length](line++);
    yield { t: (burst + 1) * 100, text };
  }
}

async function record(dir) {
  const store = new DirRecordingStore(dir);
  await store.init();
  const sid = '0e0e0e0e-1111-4222-8333-944455556666';
  const clock = { now: 0 };
  const recorder = new SessionRecorder(
    store.create(sid),
    { width: cols, height: rows, start: 0, term: 'xterm-256color', title: 'root@web-1' },
    {
      now: () => clock.now,
      onFailure: (reason) => {
        throw new Error(reason);
      },
    },
  );
  const mirror = newTerminal();
  const serializer = new SerializeAddon();
  mirror.loadAddon(serializer);
  let lastKeyframe = 0;
  for (const { t, text } of sessionOutput(castBytes, minutes * 60_000)) {
    clock.now = t;
    const bytes = Buffer.from(text);
    recorder.output(bytes);
    await written(mirror, bytes);
    if (t - lastKeyframe >= 5_000) {
      lastKeyframe = t;
      recorder.keyframe(
        recorder.position(),
        { w: cols, h: rows },
        serializer.serialize({ scrollback: 200 }),
      );
    }
  }
  await recorder.close(['alice']);
  mirror.dispose();
  return { store, index: await store.readIndex(sid) };
}

/** What the player does on a seek, minus the loopback hop: read, send as JSON, parse, apply. */
async function seek(store, index, atSeconds) {
  const terminal = newTerminal();
  const started = performance.now();
  let chunk = JSON.parse(JSON.stringify(await readChunkAt(store, index, atSeconds, 256 * 1024)));
  if (chunk.screen) {
    terminal.resize(chunk.screen.cols, chunk.screen.rows);
    await written(terminal, chunk.screen.data);
  }
  for (;;) {
    const due = chunk.events.filter(([t, kind]) => t <= atSeconds && kind === 'o');
    await written(terminal, due.map(([, , data]) => data).join(''));
    const last = chunk.events.at(-1);
    if (!last || last[0] > atSeconds || chunk.next === null) break;
    chunk = JSON.parse(JSON.stringify(await readChunkFrom(store, index, chunk.next, 256 * 1024)));
  }
  const ms = performance.now() - started;
  terminal.dispose();
  return ms;
}

/** The reference player: everything from the start, written to a fresh terminal. */
async function replayFromStart(store, index, atSeconds) {
  const terminal = newTerminal();
  const started = performance.now();
  const chunks = [];
  for await (const piece of await store.openCast(index.sid)) chunks.push(piece);
  const text = gunzipSync(Buffer.concat(chunks)).toString('utf8');
  let output = '';
  for (const line of text.split('\n').slice(1)) {
    if (!line) continue;
    const [t, kind, data] = JSON.parse(line);
    if (t > atSeconds) break;
    if (kind === 'o') output += data;
  }
  await written(terminal, output);
  const ms = performance.now() - started;
  terminal.dispose();
  return ms;
}

const dir = mkdtempSync(path.join(tmpdir(), 'postern-bench-seek-'));
try {
  const recordStart = performance.now();
  const { store, index } = await record(dir);
  const gzBytes = statSync(store.file(index.sid, 'cast.gz')).size;
  console.log(
    `recorded ${fmt(index.durationMs / 60_000, 0)} min, ${fmt(index.castBytes / MiB)} MiB of cast ` +
      `(${fmt(gzBytes / MiB)} MiB gzip), ${index.keyframes.length} keyframes, ` +
      `${index.seekPoints.length} seek points, in ${fmt((performance.now() - recordStart) / 1000)} s`,
  );
  const duration = index.durationMs / 1000;
  // Random times, plus the worst places: just before a keyframe (the longest replay after one),
  // the middle, and the very end. In random order, so backward seeks are among them.
  const times = Array.from({ length: seeks }, () => Math.random() * duration);
  const beforeKeyframe = index.keyframes[Math.floor(index.keyframes.length / 3)].t - 0.01;
  times.push(beforeKeyframe, duration / 2, duration);
  await seek(store, index, 1); // warm up
  const figures = [];
  for (const at of times) figures.push(await seek(store, index, at));
  const baselineTimes = [duration / 4, duration / 2, duration];
  const baseline = [];
  for (const at of baselineTimes) baseline.push(await replayFromStart(store, index, at));
  const p50 = median(figures);
  const p95 = quantile(figures, 0.95);
  const max = Math.max(...figures);
  printTable([
    {
      figure: `seek p50 (${times.length} seeks)`,
      value: `${fmt(p50)} ms`,
      baseline: `${fmt(median(baseline))} ms`,
      compare: `${fmt(median(baseline) / p50, 0)}× faster`,
      target: '',
      verdict: '',
    },
    {
      figure: 'seek p95',
      value: `${fmt(p95)} ms`,
      baseline: '',
      compare: '',
      target: '≤ 300 ms',
      verdict: verdict(p95 <= 300),
    },
    {
      figure: 'seek max',
      value: `${fmt(max)} ms`,
      baseline: `${fmt(Math.max(...baseline))} ms`,
      compare: '',
      target: '≤ 300 ms',
      verdict: verdict(max <= 300),
    },
  ]);
  console.log(
    'baseline: replay from the start (reference player) to 1/4, 1/2 and the end, median and max',
  );
} finally {
  if (args.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
