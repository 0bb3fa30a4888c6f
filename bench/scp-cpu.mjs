#!/usr/bin/env node
// Where the CPU goes when scp copies through Postern and straight to the sshd (issue 7): the
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

const dir = await mkdtemp(path.join(tmpdir(), 'postern-bench-scp-cpu-'));
const setup = await setUpScpPaths({ dir, bytes });
try {
  const { postern, sshd, paths, source, remote, back } = setup;
  // The clients (scp and its ssh processes) are this process's children, reaped when scp ends;
  // sshd's per-connection processes (and sftp-server) are reaped by the listening sshd.
  const parties = {
    clients: () => cpuSeconds(process.pid, 'children'),
    postern: () => cpuSeconds(postern.pid, 'own'),
    sshd: async () =>
      (await cpuSeconds(sshd.pid, 'children')) + (await cpuSeconds(sshd.pid, 'own')),
  };
  const rows = [];
  for (const name of ['proxy', 'direct']) {
    const { args: scpArgs, host } = paths[name];
    for (const [way, files] of [
      ['upload', [source, `${host}:${remote}`]],
      ['download', [`${host}:${remote}`, back]],
    ]) {
      const samples = [];
      for (let run = 0; run <= runs; run++) {
        const before = await Promise.all(Object.values(parties).map((read) => read()));
        const started = performance.now();
        await scp([...scpArgs, ...files]);
        const seconds = (performance.now() - started) / 1000;
        // sshd reaps its session process a moment after scp returns.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const after = await Promise.all(Object.values(parties).map((read) => read()));
        const perMiB = after.map((value, i) => ((value - before[i]) * 1000) / (bytes / MiB));
        if (run > 0) samples.push({ rate: bytes / MiB / seconds, perMiB });
      }
      const at = (i) => fmt(median(samples.map((s) => s.perMiB[i])), 2);
      const total = median(samples.map((s) => s.perMiB.reduce((a, b) => a + b, 0)));
      rows.push({
        figure: `${name} ${way}`,
        value: `${fmt(median(samples.map((s) => s.rate)))} MiB/s`,
        baseline: `clients ${at(0)}, postern ${at(1)}, sshd ${at(2)}`,
        compare: `${fmt(total, 2)} ms/MiB`,
        target: '',
        verdict: '',
      });
    }
  }
  printTable(rows);
  console.log(
    'columns: the copy rate; CPU ms per MiB of the clients (scp + ssh), Postern, the sshd side',
    `(sshd + sftp-server); their sum. Medians of ${runs} runs.`,
  );
} finally {
  await setup.stop();
}
