#!/usr/bin/env node
// One user's keystroke echo while another user opens sessions in bursts of 100 at once: the
// echo under that load next to the same echo measured on the quiet proxy in the same run.
// Targets are printed, never asserted.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openReady, setUp } from './support/environment.mjs';
import { addOpenSshNode, createWebSession } from './support/postern.mjs';
import { openProxyTerminal, terminalUrl } from './support/proxy-client.mjs';
import { fmt, printTable, quantile, verdict } from './support/report.mjs';
import { startSshd } from './support/sshd.mjs';

const usage = `Usage: npm run build && npm run bench:overload [-- options]

Runs the BUILT server with a real sshd (see bench/terminal.mjs), then:
  quiet   keystroke echo into cat through the proxy, one key at a time
  load    the same, while a second user opens --burst sessions at once, every second
          (the proxy's per-user open limit, session_open_limit, refuses most of them)
Prints p50 and p99 of both; target: p99 under load < 50 ms.

The flooding user's browser and server would be other machines: here they share this one's
cores, so the flooding client and its own sshd run at nice 19. The proxy and the measured
user's sshd run at normal priority.

Options:
  --samples 400   keystrokes per phase
  --burst 100     sessions the other user opens at once
  --cpu-prof DIR  run postern with node --cpu-prof, profiles written to DIR at exit
  -h, --help      this text`;

const { values: opts } = parseArgs({
  options: {
    samples: { type: 'string', default: '400' },
    burst: { type: 'string', default: '100' },
    'cpu-prof': { type: 'string' },
    'flood-child': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (opts.help) {
  console.log(usage);
  process.exit(0);
}
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

if (opts['flood-child']) await floodChild();
else await main();

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

/**
 * The flooding user, in its own process (given by the environment): opens `burst` sessions at
 * once every second until its stdin closes, then prints how many opened and were refused.
 */
async function floodChild() {
  const { FLOOD_URL: url, FLOOD_COOKIE: cookie, FLOOD_BEARER: bearer } = process.env;
  const burst = Number(opts.burst);
  const tally = { opened: 0, refused: 0 };
  let running = true;
  process.stdin.resume();
  process.stdin.on('end', () => (running = false));
  const open = async () => {
    const terminal = await openProxyTerminal({ url, cookie, bearer }).catch(() => undefined);
    if (!terminal) return void (tally.refused += 1);
    // A refused open ends with an error frame and a close; an accepted one shows a prompt.
    const outcome = await terminal.out
      .waitFor(/[#$] $/, { timeoutMs: 20_000, what: 'a prompt' })
      .then(() => 'opened')
      .catch(() => 'refused');
    tally[outcome] += 1;
    await terminal.close();
  };
  while (running) {
    const round = Promise.allSettled(Array.from({ length: burst }, () => open()));
    await Promise.all([round, sleep(1000)]);
  }
  console.log(JSON.stringify(tally));
}

/** Starts the flooding user's process at nice 19; `stop()` ends it and gives its tally. */
function startFlood(url, session) {
  const child = spawn(
    'nice',
    [
      '-n',
      '19',
      process.execPath,
      fileURLToPath(import.meta.url),
      '--flood-child',
      '--burst',
      opts.burst,
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: {
        ...process.env,
        FLOOD_URL: url,
        FLOOD_COOKIE: session.cookie,
        FLOOD_BEARER: session.bearer,
      },
    },
  );
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    async stop() {
      child.stdin.end();
      await exited;
      return JSON.parse(out.trim().split('\n').pop() || '{}');
    },
  };
}

async function main() {
  const samples = Number(opts.samples);
  const env = await setUp({
    log: (line) => console.error(`# ${line}`),
    posternNodeArgs: opts['cpu-prof']
      ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts['cpu-prof'])}`]
      : [],
  });
  try {
    const userCa = (await env.postern.cli(['ca', 'export', '--type', 'user'])).trim();
    const floodSshd = await startSshd({
      dir: path.join(env.dir, 'flood-sshd'),
      trustedUserCaKeys: userCa,
      nice: 19,
    });
    try {
      const floodNode = await addOpenSshNode(env.postern, 'flood-sshd', floodSshd.addr);
      const flooder = await createWebSession(env.postern, 'flooder', ['bench-root']);
      const floodUrl = terminalUrl(env.postern.url, { serverId: floodNode, login: 'root' });
      await sleep(1000); // the proxy learns of the node through its watch

      const terminal = await openReady(env.openProxy);
      terminal.type('cat\r');
      await sleep(300);
      await echoTimes(terminal, 30); // warm-up
      const quiet = await echoTimes(terminal, samples);
      const flood = startFlood(floodUrl, flooder);
      await sleep(500);
      const loaded = await echoTimes(terminal, samples);
      const tally = await flood.stop();
      await terminal.close();
      report({ samples, quiet, loaded, tally });
    } finally {
      await floodSshd.stop();
    }
  } finally {
    await env.tearDown();
  }
}

function report({ samples, quiet, loaded, tally }) {
  const row = (figure, q) => ({
    figure,
    value: `${fmt(quantile(loaded, q))} ms`,
    baseline: `${fmt(quantile(quiet, q))} ms`,
    compare: `${fmt(quantile(loaded, q) - quantile(quiet, q))} ms`,
    target: q === 0.99 ? '< 50 ms' : '',
    verdict: q === 0.99 ? verdict(quantile(loaded, q) < 50) : '',
  });
  console.log(
    `\nEcho of one user (n=${samples}) while another opens ${opts.burst} sessions at once every` +
      ` second (opened ${tally.opened}, refused ${tally.refused}); baseline: the quiet proxy.\n`,
  );
  printTable([row('echo p50 under load', 0.5), row('echo p99 under load', 0.99)]);
}
