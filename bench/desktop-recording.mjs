#!/usr/bin/env node
// Desktop recording size and cost: a synthetic 1280×800 framebuffer that changes 30 times a
// second is recorded for a minute through the built recorder (`packages/server/dist`, the code
// the proxy runs) into a directory, scene by scene. Figures per scene: MB written per minute,
// beside the baseline of the same run (the raw RGBA bytes the framebuffer reported changed);
// the frames per second actually written; the recorder's CPU per second of recording (the
// process's CPU, deflate on zlib's pool included, minus that of the same scene run without a
// recorder); and the event loop's delays (deflate never runs on it; the scene's painting does).
// Target: at most 20 MB per active minute for a full-screen animation (the scroll scene).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, printTable, verdict } from './support/report.mjs';

const usage = `Usage: npm run build && npm run bench:desktop-recording [-- --seconds 60] [--scene scroll]

  --seconds  how long each scene is recorded (default 60)
  --scene    one scene only: scroll (full-screen animation), windows, video, jpeg (the scroll
             as Tight JPEG strips deferred in the proxy's framebuffer, as TigerVNC sends a busy
             screen; also recorded with the JPEG decoded on the event loop, for comparison)
  --no-budget  also record each scene without the byte budget, for comparison`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    scene: { type: 'string' },
    'no-budget': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const seconds = Number(args.seconds);
if (!(seconds > 0)) {
  console.error(usage);
  process.exit(2);
}

const dist = path.join(root, 'packages/server/dist');
const load = (name) =>
  import(pathToFileURL(path.join(dist, name)).href).catch(() => {
    console.error(`No built recorder in ${dist}: run npm run build first.`);
    process.exit(2);
  });
const { startDesktopRecording } = await load('modules/desktop-recordings/desktop-recorder.js');
const { LocalDirBlobStore } = await load('blobs/local-dir-blob-store.js');
const { Framebuffer } = await load('wings/desktops/rfb/framebuffer.js');
const { JpegPaint } = await load('wings/desktops/rfb/tight-paints.js');
const { default: jpeg } = await import('jpeg-js');

const W = 1280;
const H = 800;
const updatesPerSecond = 30;
const MB = 1_000_000;

/** A framebuffer whose scene paints into it 30 times a second and reports what it changed. */
class SyntheticScreen {
  width = W;
  height = H;
  data = new Uint8Array(W * H * 4);
  listeners = new Set();
  pixels() {
    return this.data;
  }
  onUpdate(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  onResize() {
    return () => undefined;
  }
  update(rects) {
    for (const listener of this.listeners) listener(rects);
  }
}

/** The proxy's own framebuffer, whose paints are deferred (Tight) until the recorder reads it. */
class DeferredScreen extends Framebuffer {
  constructor() {
    super(W, H);
  }
  update(rects) {
    this.endUpdate(rects);
  }
}

const put = (data, x, y, rgb) => {
  const i = (y * W + x) * 4;
  data[i] = rgb[0];
  data[i + 1] = rgb[1];
  data[i + 2] = rgb[2];
  data[i + 3] = 255;
};

function fill(data, rect, rgb) {
  for (let y = rect.y; y < rect.y + rect.height; y++)
    for (let x = rect.x; x < rect.x + rect.width; x++) put(data, x, y, rgb);
}

/** Text-like lines: 8×12 glyphs of dark pixels on white, words of varying length. */
function renderDocument(height) {
  const doc = new Uint8Array(W * height * 4).fill(255);
  let seed = 7;
  const random = () => ((seed = Math.imul(seed, 1_103_515_245) + 12_345) >>> 8) & 0xffff;
  for (let line = 0; line * 20 + 16 < height; line++) {
    let x = 240 + (line % 5 === 0 ? 0 : 24);
    const end = 240 + 400 + (random() % 700);
    while (x < end) {
      const word = 2 + (random() % 9);
      for (let g = 0; g < word && x < end; g++, x += 8) {
        const glyph = random();
        for (let gy = 0; gy < 12; gy++)
          for (let gx = 0; gx < 6; gx++)
            if ((glyph >> ((gx + gy * 3) % 16)) & 1)
              put(doc, x + gx, line * 20 + 4 + gy, [32, 32, 40]);
      }
      x += 8;
    }
  }
  // A sidebar of the page.
  for (let y = 0; y < height; y++) for (let x = 0; x < 200; x++) put(doc, x, y, [232, 234, 240]);
  return doc;
}

/**
 * The scenes: each returns a function that paints update `n` and returns its damage.
 * `recorded` is false for the run without a recorder.
 */
const scenes = {
  // A page scrolled full screen, 4 px per update: every pixel row moves, every update.
  scroll: (screen) => {
    const docHeight = 4000;
    const doc = renderDocument(docHeight);
    return (n) => {
      const top = (n * 4) % (docHeight - H);
      screen.data.set(doc.subarray(top * W * 4, (top + H) * W * 4));
      return [{ x: 0, y: 0, width: W, height: H }];
    };
  },
  // Two windows dragged around a desktop, and a clock: damage where they were and are.
  windows: (screen) => {
    const desktop = new Uint8Array(W * H * 4);
    fill(desktop, { x: 0, y: 0, width: W, height: H }, [38, 70, 110]);
    fill(desktop, { x: 0, y: H - 40, width: W, height: 40 }, [30, 30, 36]);
    const page = renderDocument(H);
    const windows = [
      { width: 520, height: 360, speed: [5, 3], origin: [40, 60] },
      { width: 400, height: 300, speed: [-4, 4], origin: [700, 300] },
    ];
    screen.data.set(desktop);
    let previous = [];
    return (n) => {
      const damage = [...previous];
      screen.data.set(desktop);
      previous = windows.map((w, i) => {
        const x = bounce(w.origin[0] + n * w.speed[0], W - w.width);
        const y = bounce(w.origin[1] + n * w.speed[1], H - 40 - w.height);
        for (let row = 0; row < w.height; row++) {
          const from = ((row + i * 200) * W + 200) * 4;
          screen.data.set(page.subarray(from, from + w.width * 4), ((y + row) * W + x) * 4);
        }
        fill(screen.data, { x, y, width: w.width, height: 24 }, [60, 60, 72]);
        return { x, y, width: w.width, height: w.height };
      });
      const clock = { x: W - 120, y: H - 32, width: 100, height: 24 };
      fill(screen.data, clock, [30, 30, 36]);
      fill(screen.data, { ...clock, width: 10 + (n % 90) }, [200, 200, 210]);
      return [...damage, ...previous, clock];
    };
  },
  // The scroll as a desktop speaking Tight sends it: JPEG strips, deferred in the proxy's
  // framebuffer and decoded when the recorder reads it (docs/desktops.md, Tight).
  jpeg: (screen, { recorded }) => {
    jpegFrames ??= jpegStrips(updatesPerSecond);
    return (n) => {
      // Without a recorder nothing reads the copy: a session not recorded keeps none.
      if (recorded) {
        for (const { rect, bytes } of jpegFrames[n % jpegFrames.length]) {
          screen.defer(new JpegPaint(rect, [bytes]));
        }
      }
      return [{ x: 0, y: 0, width: W, height: H }];
    };
  },
  // A 640×360 video (noise: nothing to compress) on a still desktop.
  video: (screen) => {
    fill(screen.data, { x: 0, y: 0, width: W, height: H }, [38, 70, 110]);
    const video = { x: 320, y: 200, width: 640, height: 360 };
    let seed = 1;
    return () => {
      for (let y = video.y; y < video.y + video.height; y++) {
        for (let x = video.x; x < video.x + video.width; x++) {
          seed = Math.imul(seed, 1_664_525) + 1_013_904_223;
          put(screen.data, x, y, [seed & 255, (seed >>> 8) & 255, (seed >>> 16) & 255]);
        }
      }
      return [video];
    };
  },
};

/** Strips of the scroll scene's frames as JPEG (quality 80), 20 px high, a second's cycle. */
function jpegStrips(frames) {
  const doc = renderDocument(4000);
  const strip = 20;
  return Array.from({ length: frames }, (_, k) => {
    const top = k * 4;
    const strips = [];
    for (let y = 0; y < H; y += strip) {
      const height = Math.min(strip, H - y);
      const data = doc.subarray((top + y) * W * 4, (top + y + height) * W * 4);
      const bytes = jpeg.encode({ width: W, height, data }, 80).data;
      strips.push({ rect: { x: 0, y, width: W, height }, bytes });
    }
    return strips;
  });
}
let jpegFrames;

function bounce(position, limit) {
  const period = 2 * limit;
  const p = ((position % period) + period) % period;
  return p <= limit ? p : period - p;
}

/** Runs a scene in real time for `duration` s, with a recorder or not; what it cost. */
async function run(name, duration, recorder) {
  const screen = name === 'jpeg' ? new DeferredScreen() : new SyntheticScreen();
  // The comparison: the recorder reads without preparing, so JPEG decodes on the event loop.
  if (recorder?.jpegOnLoop) screen.prepare = () => undefined;
  const paint = scenes[name](screen, { recorded: Boolean(recorder) });
  const dir = mkdtempSync(path.join(tmpdir(), 'postern-bench-desktop-'));
  const blobs = new LocalDirBlobStore(dir);
  await blobs.init();
  const sid = '0e0e0e0e-1111-4222-8333-944455556666';
  const recording =
    recorder &&
    startDesktopRecording({
      sid,
      framebuffer: screen,
      blobs,
      now: Date.now,
      participants: ['alice'],
      ...(recorder.budget === false ? { budget: false } : {}),
      onFailure: (reason) => {
        throw new Error(reason);
      },
    });
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let changed = 0;
  let updates = 0;
  for (let n = 0; performance.now() - started < duration * 1000; n++) {
    const rects = paint(n);
    changed += rects.reduce((sum, r) => sum + r.width * r.height * 4, 0);
    screen.update(rects);
    updates += 1;
    const next = started + ((n + 1) * 1000) / updatesPerSecond;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
  }
  const result = recording ? await recording.close() : undefined;
  const cpu = process.cpuUsage(cpuBefore);
  lag.disable();
  const elapsed = (performance.now() - started) / 1000;
  let writes = 0;
  if (result) {
    const index = JSON.parse((await blobs.get(`${sid}.desktop.index.json`)).toString());
    writes = index.integrity.chunks - 1;
    result.keyframes = index.keyframes.length;
    result.files = (await blobs.list()).reduce(
      (sum, n) => sum + statSync(path.join(dir, n)).size,
      0,
    );
  }
  rmSync(dir, { recursive: true, force: true });
  return {
    elapsed,
    updates,
    changed,
    cpuMs: (cpu.user + cpu.system) / 1000,
    lagMaxMs: lag.max / 1e6,
    lagP99Ms: lag.percentile(99) / 1e6,
    result,
    writes,
  };
}

const names = args.scene ? [args.scene] : Object.keys(scenes);
if (names.some((name) => !scenes[name])) {
  console.error(usage);
  process.exit(2);
}

console.log(
  `Desktop recording, ${W}×${H}, the framebuffer changing ${updatesPerSecond} times a second, ` +
    `${seconds} s per scene (node ${process.version}, zlib ${process.versions.zlib})\n`,
);
const rows = [];
for (const name of names) {
  const variants = args['no-budget'] ? [{}, { budget: false }] : [{}];
  if (name === 'jpeg') variants.push({ jpegOnLoop: true });
  // The scene alone, for the CPU the synthetic screen costs without a recorder.
  const bare = await run(name, Math.min(seconds, 15), undefined);
  const bareCpuPerSecond = bare.cpuMs / bare.elapsed;
  for (const recorder of variants) {
    const label =
      recorder.budget === false
        ? `${name}, no budget`
        : recorder.jpegOnLoop
          ? `${name}, decoded on the event loop`
          : name;
    const r = await run(name, seconds, recorder);
    const perMinute = (bytes) => (bytes / r.elapsed) * 60;
    const mbPerMinute = perMinute(r.result.files) / MB;
    const rawPerMinute = perMinute(r.changed) / MB;
    const cpuPerSecond = r.cpuMs / r.elapsed - bareCpuPerSecond;
    const full = (name === 'scroll' || name === 'jpeg') && recorder.budget !== false;
    rows.push(
      {
        figure: `${label}: MB per minute`,
        value: fmt(mbPerMinute),
        baseline: `${fmt(rawPerMinute, 0)} raw`,
        compare: `${fmt(rawPerMinute / mbPerMinute, 0)}× smaller`,
        target: full ? '≤ 20' : '',
        verdict: full ? verdict(mbPerMinute <= 20) : '',
      },
      {
        figure: `${label}: frames written per second`,
        value: fmt(r.writes / r.elapsed),
        baseline: `${fmt(r.updates / r.elapsed)} updates`,
        compare: `${r.result.keyframes} keyframes`,
        target: '≤ 10',
        verdict: verdict(r.writes / r.elapsed <= 10.5),
      },
      {
        figure: `${label}: recorder CPU ms per second`,
        value: fmt(cpuPerSecond),
        baseline: `${fmt(bareCpuPerSecond)} scene`,
        compare: `${fmt(cpuPerSecond / 10)}% of a core`,
        target: '',
        verdict: '',
      },
      {
        figure: `${label}: event loop delay p99 / max, ms`,
        value: `${fmt(r.lagP99Ms)} / ${fmt(r.lagMaxMs)}`,
        baseline: `${fmt(bare.lagP99Ms)} / ${fmt(bare.lagMaxMs)} scene`,
        compare: '',
        target: '',
        verdict: '',
      },
    );
  }
}
printTable(rows);
console.log(
  '\nraw: the RGBA bytes the framebuffer reported changed (its updates × their area × 4). ' +
    'MB = 10^6 bytes; the files are the events, the chunk list and the seal. A run shorter ' +
    "than a minute overstates MB per minute: the budget's 1 MB saved up counts in full.",
);
