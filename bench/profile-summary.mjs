#!/usr/bin/env node
// Where the time of a terminal flood goes: reads .cpuprofile files written by
// `npm run bench:terminal -- --cpu-prof DIR` (the proxy, and its worker threads) or
// `--page-prof DIR` (the console's main thread in Chromium) and prints the CPU time per part of
// the path, in ms and in ms per MiB of terminal output. Each sample counts for the deepest frame
// on its stack that belongs to a part, so a socket write under ws's sender counts as WebSocket,
// and a decrypt under ssh2 as the SSH channel. docs/protocol.md §9 quotes its output.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const usage = `Usage: node bench/profile-summary.mjs [--mib N] [--from S --to S] FILE.cpuprofile...

  --mib N      MiB of terminal output during the profile, to print ms per MiB
  --from/--to  only the samples between these seconds of the profile (default: all)
  --busiest S  only the busiest window of S seconds (the flood), found by the idle samples`;

const { values: opts, positionals: files } = parseArgs({
  allowPositionals: true,
  options: {
    mib: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    busiest: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (opts.help || files.length === 0) {
  console.log(usage);
  process.exit(opts.help ? 0 : 2);
}

/** [part, test(frame)]: the first part whose test matches a frame names it. */
const parts = [
  ['idle', (f) => f.functionName === '(idle)'],
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  ['recording (cast lines, gzip, hashes)', (f) => /\/recordings\/|node:zlib|zlib\.js/.test(f.url)],
  ['screen mirror', (f) => /screen-mirror|xterm-headless|addon-serialize/.test(f.url)],
  ['WebSocket (ws framing, socket writes)', (f) => /\/ws\/lib\//.test(f.url)],
  [
    'session and envelope (parties, flow control)',
    (f) => /\/sessions\/|websocket-party|terminal-socket/.test(f.url),
  ],
  ['SSH channel (ssh2: decrypt, packets)', (f) => /\/ssh2\/lib\//.test(f.url)],
  // The console's page.
  ['page: acks sent', (f) => f.functionName === 'sendFrame' || f.functionName === 'flushAck'],
  // xterm's write buffer parses in _innerWrite; its render service draws rows in _renderRows.
  ['page: xterm.js parsing', (f) => f.functionName === '_innerWrite'],
  ['page: xterm.js rendering (DOM rows)', (f) => /^_?renderRows$/.test(f.functionName)],
  [
    'page: socket receive and decoding',
    (f) => /^(receive|dispatch|onmessage|e\.onmessage)$/.test(f.functionName),
  ],
  ['(program): native, unattributed', (f) => f.functionName === '(program)'],
];

function summarise(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const partOf = new Map();
  const nameOf = (id) => {
    if (partOf.has(id)) return partOf.get(id);
    const frame = byId.get(id).callFrame;
    const own = parts.find(([, test]) => test(frame))?.[0];
    const name = own ?? (parent.has(id) ? nameOf(parent.get(id)) : 'other JavaScript and native');
    partOf.set(id, name);
    return name;
  };
  const times = [];
  let t = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    times.push(t / 1e6);
  }
  let [from, to] = [Number(opts.from ?? 0), Number(opts.to ?? Infinity)];
  if (opts.busiest) [from, to] = busiestWindow(profile, times, Number(opts.busiest), byId);
  const totals = new Map();
  let all = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    if (times[i] < from || times[i] > to) continue;
    const ms = profile.timeDeltas[i] / 1000;
    const name = nameOf(profile.samples[i]);
    totals.set(name, (totals.get(name) ?? 0) + ms);
    all += ms;
  }
  const mib = opts.mib ? Number(opts.mib) : undefined;
  console.log(
    `\n${path.basename(file)}: ${all.toFixed(0)} ms (${from.toFixed(1)}-${Math.min(to, times.at(-1)).toFixed(1)} s)`,
  );
  for (const [name, ms] of [...totals].sort((a, b) => b[1] - a[1])) {
    const perMib = mib ? `${(ms / mib).toFixed(2).padStart(7)} ms/MiB` : '';
    console.log(
      `  ${name.padEnd(46)} ${ms.toFixed(0).padStart(7)} ms ${((100 * ms) / all).toFixed(1).padStart(5)}% ${perMib}`,
    );
  }
}

/** The window of `seconds` with the fewest idle samples. */
function busiestWindow(profile, times, seconds, byId) {
  let best = [0, seconds];
  let bestIdle = Infinity;
  let idle = 0;
  let start = 0;
  const isIdle = (i) => byId.get(profile.samples[i]).callFrame.functionName === '(idle)';
  for (let end = 0; end < times.length; end++) {
    if (isIdle(end)) idle += profile.timeDeltas[end];
    while (times[end] - times[start] > seconds) {
      if (isIdle(start)) idle -= profile.timeDeltas[start];
      start++;
    }
    if (times[end] - times[start] >= seconds * 0.95 && idle < bestIdle) {
      bestIdle = idle;
      best = [times[start], times[end]];
    }
  }
  return best;
}

for (const file of files) summarise(file);
