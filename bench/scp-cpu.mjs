#!/usr/bin/env node
// Where the CPU goes when scp copies through Postern and straight to the sshd: the
// milliseconds of CPU per MiB copied of each party, from the kernel's accounting, no sampling.
// A diagnostic beside bench:scp (no target): on a machine whose cores all take part in a copy,
// throughput is about (cores busy) / (sum of these). Run after `npm run build`.
import { readFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { assertBuilt } from './support/postern.mjs';
import { fmt, MiB, median, printTable } from './support/report.mjs';
import { scp, setUpScpPaths } from './support/scp-paths.mjs';

const { values: args } = parseArgs({
  options: { mib: { type: 'string', default: '200' }, runs: { type: 'string', default: '3' } },
});
const bytes = Number(args.mib) * MiB;
const runs = Number(args.runs);
assertBuilt();

/** CPU seconds of a process: its own, or (children) those of its children it has reaped. */
async function cpuSeconds(pid, whose) {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  // utime, stime, cutime, cstime are fields 14-17 of proc(5): 11-14 after the name.
  const ticks = whose === 'own' ? fields[11] + fields[12] : fields[13] + fields[14];
  return ticks / 100;
}

/** CPU seconds the whole machine spent busy (every process and the kernel), from /proc/stat. */
async function machineBusySeconds() {
  const [user, nice, system, , , irq, softirq, steal] = (await readFile('/proc/stat', 'utf8'))
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq + steal) / 100;
}

const dir = await mkdtemp(path.join(tmpdir(), 'postern-bench-scp-cpu-'));
// --trace-gc: V8 prints a line per collection, so the mark-compacts of each copy can be counted.
const setup = await setUpScpPaths({ dir, bytes, posternNodeArgs: ['--trace-gc'] });
try {
  const { postern, sshd, paths, source, remote, back } = setup;
  // The clients (scp and its ssh processes) are this process's children, reaped when scp ends
  // (not quite: the jump's second ssh, a child of the first, is not always reaped by it, so its
  // CPU can be missing here; the machine's figure has it). sshd's per-connection processes (and
  // sftp-server) are reaped by the listening sshd.
  const parties = {
    clients: () => cpuSeconds(process.pid, 'children'),
    postern: () => cpuSeconds(postern.pid, 'own'),
    sshd: async () =>
      (await cpuSeconds(sshd.pid, 'children')) + (await cpuSeconds(sshd.pid, 'own')),
    machine: machineBusySeconds,
  };
  const rows = [];
  const machineByCopy = {};
  for (const name of ['proxy', 'direct']) {
    const { args: scpArgs, host } = paths[name];
    for (const [way, files] of [
      ['upload', [source, `${host}:${remote}`]],
      ['download', [`${host}:${remote}`, back]],
    ]) {
      const samples = [];
      for (let run = 0; run <= runs; run++) {
        const before = await Promise.all(Object.values(parties).map((read) => read()));
        const collectionsBefore = postern.collections().markCompact;
        const started = performance.now();
        await scp([...scpArgs, ...files]);
        const seconds = (performance.now() - started) / 1000;
        // sshd reaps its session process a moment after scp returns.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const after = await Promise.all(Object.values(parties).map((read) => read()));
        const perMiB = after.map((value, i) => ((value - before[i]) * 1000) / (bytes / MiB));
        const markCompacts = postern.collections().markCompact - collectionsBefore;
        if (run > 0) samples.push({ rate: bytes / MiB / seconds, perMiB, markCompacts });
      }
      const at = (i) => fmt(median(samples.map((s) => s.perMiB[i])), 2);
      // Mark-compacts of Postern during one copy: a handful at most when its heap is healthy.
      const markCompacts = median(samples.map((s) => s.markCompacts));
      const collected = name === 'proxy' ? ` (${markCompacts} mark-compacts)` : '';
      const machine = median(samples.map((s) => s.perMiB[3]));
      machineByCopy[`${name} ${way}`] = machine;
      rows.push({
        figure: `${name} ${way}`,
        value: `${fmt(median(samples.map((s) => s.rate)))} MiB/s`,
        baseline: `clients ${at(0)}, postern ${at(1)}${collected}, sshd ${at(2)}`,
        compare: `${fmt(machine, 2)} ms/MiB`,
        target: '',
        verdict: '',
      });
    }
  }
  printTable(rows);
  console.log(
    'columns: the copy rate; CPU ms per MiB of the clients (scp + ssh), Postern, the sshd side',
    `(sshd + sftp-server); the whole machine's busy CPU ms per MiB. Medians of ${runs} runs.`,
    'Postern runs with --trace-gc to count its mark-compacts per copy.',
  );
  // When every party shares the machine's cores and keeps them about as busy on both paths,
  // the speed ratio follows the CPU ratio: what the whole pipeline costs per MiB each way.
  for (const way of ['upload', 'download']) {
    const ratio = machineByCopy[`direct ${way}`] / machineByCopy[`proxy ${way}`];
    console.log(`${way}: CPU per MiB straight / through Postern = ${fmt(ratio, 2)}`);
  }
} finally {
  await setup.stop();
}
