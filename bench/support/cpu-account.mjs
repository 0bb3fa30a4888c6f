// CPU time spent by each part of the machine during a timed run, from /proc (user + system time
// of every process, in clock ticks). On a machine with few cores the terminal figures are bound
// by the CPU of the whole path (sshd, postern, the browser's processes), not by one part waiting
// on another: these totals say, per MiB of output, what each part costs, and whether the cores
// were full. Sampling profilers cannot tell that: they count wall time, so a thread that waits
// for a core is charged for whatever it was running.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** Linux's USER_HZ: /proc reports CPU time in hundredths of a second on every architecture. */
const msPerTick = 10;

/** Which part of the path a process is, by its name and command line. */
function partOf(comm, cmdline) {
  if (comm === 'node' && /postern\.js\0start/.test(cmdline)) return 'postern';
  if (comm === 'node' && cmdline.includes('wetty')) return 'wetty';
  if (comm === 'sshd' || comm === 'ssh' || comm === 'cat') return comm;
  if (comm.startsWith('chrom')) {
    const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
    return type === 'renderer' ? 'browser renderer' : 'browser other';
  }
  if (cmdline.includes('bench/terminal.mjs')) return 'bench driver';
  return 'other';
}

/** CPU ticks used so far by every process, keyed by pid. */
export function cpuSnapshot() {
  const snapshot = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      snapshot.set(pid, {
        part: partOf(comm, cmdline),
        ticks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return snapshot;
}

/**
 * Milliseconds of CPU per part between two snapshots `seconds` apart, and how full the cores
 * were (the machine's whole CPU time over its cores × the wall time).
 */
export function cpuSpent(before, after, seconds) {
  const parts = {};
  let total = 0;
  for (const [pid, { part, ticks }] of after) {
    const used = (ticks - (before.get(pid)?.ticks ?? 0)) * msPerTick;
    if (used <= 0) continue;
    parts[part] = (parts[part] ?? 0) + used;
    total += used;
  }
  return { parts, total, busy: total / (cpus().length * seconds * 1000) };
}

/** "postern 12.3, sshd 8.1, ..." in ms per MiB, largest first, small parts left out. */
export function perMiB({ parts, total, busy }, mib) {
  const list = Object.entries(parts)
    .map(([part, ms]) => [part, ms / mib])
    .filter(([, ms]) => ms >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([part, ms]) => `${part} ${ms.toFixed(1)}`)
    .join(', ');
  return `${(total / mib).toFixed(1)} ms/MiB (${list}); cores ${(busy * 100).toFixed(0)}% busy`;
}
