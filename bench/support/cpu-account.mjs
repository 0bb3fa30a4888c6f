// CPU time spent by each part of the machine during a timed run, from /proc (user + system time
// of every process, in clock ticks). On a machine with few cores a figure is often bound by the
// CPU of the whole path (sshd, postern, the browser's processes, the database, the client), not
// by one part waiting on another: these totals say, per unit of work (a MiB, a transaction),
// what each part costs, and whether the cores were full. Sampling profilers cannot tell that:
// they count wall time, so a thread that waits for a core is charged for whatever it was running.
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** Linux's USER_HZ: /proc reports CPU time in hundredths of a second on every architecture. */
const msPerTick = 10;

/** The proxy under test, in any bench: `postern start` run by node. */
export function isPostern(comm, cmdline) {
  return comm === 'node' && /postern\.js\0start/.test(cmdline);
}

/** Which part of the terminal path a process is, by its name and command line. */
export function terminalParts(comm, cmdline) {
  if (isPostern(comm, cmdline)) return 'postern';
  if (comm === 'node' && cmdline.includes('wetty')) return 'wetty';
  if (comm === 'sshd' || comm === 'ssh' || comm === 'cat') return comm;
  if (comm.startsWith('chrom')) {
    const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
    return type === 'renderer' ? 'browser renderer' : 'browser other';
  }
  if (cmdline.includes('bench/terminal.mjs')) return 'bench driver';
  return 'other';
}

/**
 * CPU ticks from a stat line: user + system, and with `children` also those of the children it
 * waited for. A process that ends is gone from /proc, but its parent's count keeps it: a
 * database's backends, which end with their client's connection, count under the postmaster.
 */
function ticksOf(stat, { children = false } = {}) {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]);
  return children ? own + Number(fields[13]) + Number(fields[14]) : own;
}

/**
 * CPU ticks used so far by every process, keyed by pid, each named by `partOf(comm, cmdline)`.
 * With `splitPostern`, Postern's main thread and its other threads (the audit writer, the
 * recording encoder, libuv's pool) count as two parts, "postern main" and "postern threads".
 * Every process's count includes its children that ended in the run (see ticksOf), but for
 * this one's: with `reaped` they count as that part (a client run to its end, like pgbench),
 * without it not at all. Each entry names its parent's entry, for cpuSpent.
 */
export function cpuSnapshot(partOf = terminalParts, { splitPostern = false, reaped } = {}) {
  const snapshot = new Map();
  const self = readFileSync('/proc/self/stat', 'utf8');
  if (reaped) {
    snapshot.set('reaped', {
      part: reaped,
      ticks: ticksOf(self, { children: true }) - ticksOf(self),
    });
  }
  const parentKey = (stat) => {
    const ppid = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
    return Number(ppid) === process.pid ? 'reaped' : ppid;
  };
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const part = partOf(comm, cmdline);
      if (splitPostern && isPostern(comm, cmdline)) {
        const main = ticksOf(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
        snapshot.set(`${pid}/main`, { part: `${part} main`, ticks: main });
        snapshot.set(`${pid}/threads`, { part: `${part} threads`, ticks: ticksOf(stat) - main });
      } else {
        const ticks = ticksOf(stat, { children: Number(pid) !== process.pid });
        snapshot.set(pid, { part, ticks, parent: parentKey(stat) });
      }
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
  // A process that ended in the run came back in its parent's count with all its life's CPU;
  // what it had used before the run was counted then, so it comes off the parent's.
  const earlier = new Map();
  for (const [key, { ticks, parent }] of before) {
    if (after.has(key) || !after.has(parent)) continue;
    earlier.set(parent, (earlier.get(parent) ?? 0) + ticks);
  }
  const parts = {};
  let total = 0;
  for (const [key, { part, ticks }] of after) {
    const used = (ticks - (before.get(key)?.ticks ?? 0) - (earlier.get(key) ?? 0)) * msPerTick;
    if (used <= 0) continue;
    parts[part] = (parts[part] ?? 0) + used;
    total += used;
  }
  return { parts, total, busy: total / (cpus().length * seconds * 1000) };
}

/** Several runs' cpuSpent as one: the parts and totals summed, the cores' business averaged. */
export function sumSpent(runs) {
  const parts = {};
  for (const run of runs) {
    for (const [part, ms] of Object.entries(run.parts)) parts[part] = (parts[part] ?? 0) + ms;
  }
  return {
    parts,
    total: runs.reduce((sum, run) => sum + run.total, 0),
    busy: runs.reduce((sum, run) => sum + run.busy, 0) / runs.length,
  };
}

/** "postern 12.3, sshd 8.1, ..." in ms per MiB, largest first, small parts left out. */
export function perMiB(spent, mib) {
  return perUnit(spent, mib, { unit: 'ms/MiB', scale: 1, digits: 1, floor: 0.5 });
}

/**
 * The same per `count` units of any kind: each part's ms × `scale` over `count` (scale 1000 and
 * unit "µs/transaction", say), largest first; parts under `floor` are left out.
 */
export function perUnit({ parts, total, busy }, count, { unit, scale, digits, floor }) {
  const each = (ms) => (ms * scale) / count;
  const list = Object.entries(parts)
    .map(([part, ms]) => [part, each(ms)])
    .filter(([, value]) => value >= floor)
    .sort((a, b) => b[1] - a[1])
    .map(([part, value]) => `${part} ${value.toFixed(digits)}`)
    .join(', ');
  return `${each(total).toFixed(digits)} ${unit} (${list}); cores ${(busy * 100).toFixed(0)}% busy`;
}
