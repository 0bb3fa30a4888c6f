#!/usr/bin/env node
// One user's keystroke echo while another user opens sessions in bursts of 100 at once: the
// echo under that load next to the same echo measured on the quiet proxy in the same run.
// Targets are printed, never asserted.
import { parseArgs } from 'node:util';
import { openReady, setUp } from './support/environment.mjs';
import { createWebSession } from './support/postern.mjs';
import { openProxyTerminal, terminalUrl } from './support/proxy-client.mjs';
import { fmt, printTable, quantile, verdict } from './support/report.mjs';

const usage = `Usage: npm run build && npm run bench:overload [-- options]

Runs the BUILT server with a real sshd (see bench/terminal.mjs), then:
  quiet   keystroke echo into cat through the proxy, one key at a time
  load    the same, while a second user opens --burst sessions at once, every second
          (the proxy's per-user open limit refuses most of them)
Prints p50 and p99 of both; target: p99 under load < 50 ms.

Options:
  --samples 400   keystrokes per phase
  --burst 100     sessions the other user opens at once
  -h, --help      this text`;

const { values: opts } = parseArgs({
  options: {
    samples: { type: 'string', default: '400' },
    burst: { type: 'string', default: '100' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log(usage);
  process.exit(0);
}
const samples = Number(opts.samples);
const burst = Number(opts.burst);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Echo times (ms) of `count` keys typed one at a time into a `cat` in the terminal. */
async function echoTimes(terminal, count) {
  const times = [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  let line = '';
  for (let i = 0; i < count; i++) {
    const key = letters[i % letters.length];
    const echoed = terminal.out.waitFor(key, { timeoutMs: 10_000, what: `the echo of ${key}` });
    const start = performance.now();
    terminal.type(key);
    times.push((await echoed) - start);
    line += key;
    if (line.length === 60) {
      const back = terminal.out.waitFor(`${line}\r\n`, { what: 'cat echoing the line' });
      terminal.type('\r');
      await back;
      line = '';
    }
    await sleep(5);
  }
  return times;
}

/** Opens `burst` sessions at once as the flooding user, every second, until stopped. */
function flood(env, flooder) {
  const url = terminalUrl(env.postern.url, { serverId: env.nodeId, login: 'root' });
  const tally = { opened: 0, refused: 0 };
  let running = true;
  const open = async () => {
    const terminal = await openProxyTerminal({
      url,
      cookie: flooder.cookie,
      bearer: flooder.bearer,
    }).catch(() => undefined);
    if (!terminal) return void (tally.refused += 1);
    // A refused open ends with an error frame and a close; an accepted one shows a prompt.
    const outcome = await terminal.out
      .waitFor(/[#$] $/, { timeoutMs: 20_000, what: 'a prompt' })
      .then(() => 'opened')
      .catch(() => 'refused');
    tally[outcome] += 1;
    await terminal.close();
  };
  const done = (async () => {
    while (running) {
      const round = Promise.allSettled(Array.from({ length: burst }, () => open()));
      await Promise.race([round, sleep(1000)]);
      await round;
    }
  })();
  return {
    tally,
    stop: async () => {
      running = false;
      await done;
    },
  };
}

const env = await setUp({ log: (line) => console.error(`# ${line}`) });
try {
  const flooder = await createWebSession(env.postern, 'flooder', ['bench-root']);
  const terminal = await openReady(env.openProxy);
  terminal.type('cat\r');
  await sleep(300);
  await echoTimes(terminal, 30); // warm-up
  const quiet = await echoTimes(terminal, samples);
  const load = flood(env, flooder);
  await sleep(500);
  const loaded = await echoTimes(terminal, samples);
  await load.stop();
  await terminal.close();

  const row = (figure, q) => ({
    figure,
    value: `${fmt(quantile(loaded, q))} ms`,
    baseline: `${fmt(quantile(quiet, q))} ms`,
    compare: `${fmt(quantile(loaded, q) - quantile(quiet, q))} ms`,
    target: q === 0.99 ? '< 50 ms' : '',
    verdict: q === 0.99 ? verdict(quantile(loaded, q) < 50) : '',
  });
  console.log(
    `\nEcho of one user (n=${samples}) while another opens ${burst} sessions at once every second` +
      ` (opened ${load.tally.opened}, refused ${load.tally.refused}); baseline: the quiet proxy.\n`,
  );
  printTable([row('echo p50 under load', 0.5), row('echo p99 under load', 0.99)]);
} finally {
  await env.tearDown();
}
