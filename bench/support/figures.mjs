// Figures (a)–(e): each measures the proxy path and the `ssh -tt` baseline in the same run, on
// the same sshd, with the same shell and the same client-side work per byte.
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { cpuSnapshot, cpuSpent } from './cpu-account.mjs';
import { firstPrompt, openReady, PROMPT } from './environment.mjs';
import { rssBytes } from './postern.mjs';
import { MiB, median, quantile } from './report.mjs';

/** Makes the file `cat` streams in (a): base64 of `size` random bytes, made once, unmeasured. */
export async function makeBulkFile(file, size) {
  await promisify(execFile)('sh', ['-c', `head -c ${size} /dev/urandom | base64 > '${file}'`]);
}

/** (a) Throughput of `cat` of a big base64 file: MiB/s of terminal output received. */
export async function bulkOutput(env, { file, rounds }) {
  const once = async (open) => {
    const terminal = await openReady(open);
    const done = terminal.out.waitFor(PROMPT, { timeoutMs: 300_000, what: 'the end of cat' });
    const before = terminal.out.bytes;
    // Postern's main thread apart from its threads (the recording encoder, the screen mirror).
    const cpuBefore = cpuSnapshot(undefined, { splitPostern: true });
    const start = performance.now();
    terminal.type(`cat '${file}'\r`);
    const end = await done;
    const seconds = (end - start) / 1000;
    const cpu = cpuSpent(cpuBefore, cpuSnapshot(undefined, { splitPostern: true }), seconds);
    const bytes = terminal.out.bytes - before;
    await terminal.close();
    return { mibps: bytes / MiB / seconds, bytes, seconds, cpu };
  };
  const proxy = [];
  const ssh = [];
  // Alternate, so both paths see the same machine (page cache, CPU frequency, neighbours).
  for (let i = 0; i < rounds; i++) {
    ssh.push(await once(env.openSsh));
    proxy.push(await once(env.openProxy));
  }
  const best = (runs) => runs.reduce((a, b) => (b.mibps > a.mibps ? b : a));
  return { proxy: best(proxy), ssh: best(ssh), runs: { proxy, ssh } };
}

/**
 * (b) Keystroke echo: one character at a time into `cat` (the PTY's echo answers), the time until
 * it comes back. The two paths take turns, key by key.
 */
export async function keystrokeEcho(env, { samples, warmup = 30 }) {
  const terminals = { proxy: await openReady(env.openProxy), ssh: await openReady(env.openSsh) };
  const times = { proxy: [], ssh: [] };
  for (const terminal of Object.values(terminals)) terminal.type('cat\r');
  await sleep(300);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  let line = '';
  for (let i = 0; i < samples + warmup; i++) {
    const key = letters[i % letters.length];
    const order = i % 2 ? ['proxy', 'ssh'] : ['ssh', 'proxy'];
    for (const kind of order) {
      const terminal = terminals[kind];
      const echoed = terminal.out.waitFor(key, { timeoutMs: 5000, what: `the echo of ${key}` });
      const start = performance.now();
      terminal.type(key);
      const end = await echoed;
      if (i >= warmup) times[kind].push(end - start);
    }
    line += key;
    if (line.length === 60) {
      // Keep cat's line short (a canonical-mode line holds 4095 bytes); not measured.
      await Promise.all(
        Object.values(terminals).map((terminal) => {
          const back = terminal.out.waitFor(`${line}\r\n`, { what: 'cat echoing the line' });
          terminal.type('\r');
          return back;
        }),
      );
      line = '';
    }
    await sleep(2);
  }
  for (const terminal of Object.values(terminals)) await terminal.close();
  const summary = (t) => ({ p50: quantile(t, 0.5), p99: quantile(t, 0.99), n: t.length });
  return { proxy: summary(times.proxy), ssh: summary(times.ssh) };
}

/** (c) Ctrl-C after `yes` has flooded the terminal for a second: time until the prompt is back. */
export async function interruptFlood(env, { rounds, floodMs = 1000 }) {
  const once = async (open) => {
    const terminal = await openReady(open);
    terminal.type('yes\r');
    await sleep(floodMs);
    const prompt = terminal.out.waitFor(PROMPT, { timeoutMs: 60_000, what: 'the prompt after ^C' });
    const before = terminal.out.bytes;
    const start = performance.now();
    terminal.type('\x03');
    const end = await prompt;
    const drained = terminal.out.bytes - before;
    await terminal.close();
    return { ms: end - start, drained };
  };
  const proxy = [];
  const ssh = [];
  for (let i = 0; i < rounds; i++) {
    ssh.push(await once(env.openSsh));
    proxy.push(await once(env.openProxy));
  }
  const summary = (runs) => ({
    ms: median(runs.map((r) => r.ms)),
    max: Math.max(...runs.map((r) => r.ms)),
    drained: median(runs.map((r) => r.drained)),
  });
  return { proxy: summary(proxy), ssh: summary(ssh) };
}

/** (d) `count` sessions opened at once: time from opening each to its first prompt. */
export async function concurrentOpen(env, { count }) {
  const burst = async (open) => {
    const terminals = [];
    const times = await Promise.all(
      Array.from({ length: count }, async () => {
        const terminal = await open();
        terminals.push(terminal);
        return (await firstPrompt(terminal)) - terminal.openedAt;
      }),
    );
    await Promise.all(terminals.map((t) => t.close()));
    // Proxy only: until the SSH channel was open; the rest is sshd starting the login shell.
    const channel = terminals.filter((t) => t.sessionAt).map((t) => t.sessionAt - t.openedAt);
    return { p50: median(times), max: Math.max(...times), channelP50: median(channel) };
  };
  // One of each alone first: a figure for context, and neither side pays a cold start later.
  const single = {};
  for (const [kind, open] of [
    ['ssh', env.openSsh],
    ['proxy', env.openProxy],
  ]) {
    const terminal = await open();
    single[kind] = (await firstPrompt(terminal)) - terminal.openedAt;
    if (terminal.sessionAt) single.channel = terminal.sessionAt - terminal.openedAt;
    await terminal.close();
  }
  const ssh = await burst(env.openSsh);
  await sleep(500);
  const proxy = await burst(env.openProxy);
  return { proxy, ssh, single };
}

/**
 * (e) The proxy's resident memory before and after opening `count` idle sessions (in batches,
 * each session waited for until its first prompt), after letting it settle. For scale, the RSS
 * of one idle `ssh -tt` client process, which is what each session costs without a proxy.
 */
export async function idleMemory(env, { count, batch = 20, settleMs = 2000, log = () => {} }) {
  const pid = env.postern.pid;
  const ssh = await openReady(env.openSsh);
  await sleep(settleMs);
  const sshClientRss = await rssBytes(ssh.pid);
  await ssh.close();

  await sleep(settleMs);
  const before = await rssBytes(pid);
  const terminals = [];
  const start = performance.now();
  for (let opened = 0; opened < count; opened += batch) {
    const n = Math.min(batch, count - opened);
    const next = await Promise.all(
      Array.from({ length: n }, async () => {
        const terminal = await env.openProxy();
        await firstPrompt(terminal, 60_000);
        return terminal;
      }),
    );
    terminals.push(...next);
    if ((opened + n) % 100 === 0) log(`  ${opened + n} idle sessions open`);
  }
  const openSeconds = (performance.now() - start) / 1000;
  await sleep(settleMs);
  const after = await rssBytes(pid);
  for (let i = 0; i < terminals.length; i += 50) {
    await Promise.all(terminals.slice(i, i + 50).map((t) => t.close()));
  }
  return {
    count,
    before,
    after,
    perSession: (after - before) / count,
    sshClientRss,
    openSeconds,
  };
}
