#!/usr/bin/env node
// Audit search at scale: seeds N events into a fresh SQLite audit store, then times
// 5000-event pages through the built store (`packages/server/dist`), the same code the API runs.
// Run after `npm run build`. Targets: a page within 50 ms at 1M events and 100 ms at 10M.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, median, printTable, verdict } from './support/report.mjs';

const usage = `Usage: npm run build && npm run bench:audit [-- --sizes 1e6] [--runs 7]

  --sizes  event counts to seed, comma-separated (default 1e6,1e7; 1e7 takes ~3 min and 3.5 GB)
  --runs   timed repetitions per page; the median is reported (default 7)
  --keep   leave the seeded database files in place (their paths are printed)`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1e6,1e7' },
    runs: { type: 'string', default: '7' },
    keep: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const sizes = args.sizes.split(',').map((size) => Math.round(Number(size)));
const runs = Number(args.runs);
if (sizes.some((size) => !Number.isSafeInteger(size) || size < 10_000) || !(runs >= 1)) {
  console.error(usage);
  process.exit(2);
}

const storeModule = path.join(root, 'packages/server/dist/modules/audit/audit.sqlite.js');
const { SqliteAuditStore } = await import(pathToFileURL(storeModule).href).catch(() => {
  console.error(`No built store at ${storeModule}: run npm run build first.`);
  process.exit(2);
});
const Database = createRequire(path.join(root, 'packages/server/package.json'))('better-sqlite3');

const pageSize = 5000;
const spanMs = 365 * 24 * 3600 * 1000;
const start = Date.parse('2025-01-01T00:00:00Z');
// A realistic mix: most events are session traffic, a few are logins and admin changes.
const mix = [
  ['session.start', 'T2000I', 20],
  ['session.end', 'T2004I', 20],
  ['session.join', 'T2001I', 10],
  ['resize', 'T2002I', 20],
  ['exec', 'T3002I', 15],
  ['user.login', 'T1000I', 8],
  ['user.login', 'T1000W', 2],
  ['role.updated', 'T9002I', 3],
  ['lock.created', 'TLK00I', 2],
];
const weighted = mix.flatMap(([type, code, weight]) => Array(weight).fill([type, code]));

/** Seeds `count` events evenly over a year, 50,000 per transaction, with the store's columns. */
function seed(file, count) {
  new SqliteAuditStore(file, 'bench').close(); // creates the schema and indexes
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const insert = db.prepare(
    'INSERT INTO audit_events (time_ms, event_type, code, user_name, session_id, data) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const batch = db.transaction((from, to) => {
    for (let i = from; i < to; i++) {
      const timeMs = start + Math.floor((i * spanMs) / count);
      const [event, code] = weighted[i % weighted.length];
      const user = `user${i % 500}`;
      const sid = `sid-${Math.floor(i / 40)}`;
      const data = JSON.stringify({
        event,
        code,
        time: new Date(timeMs).toISOString(),
        uid: `uid-${i}`,
        user,
        sid,
        cluster_name: 'bench',
        login: 'root',
        server_hostname: `node-${i % 200}`,
      });
      insert.run(timeMs, event, code, user, sid, data);
    }
  });
  for (let from = 0; from < count; from += 50_000) batch(from, Math.min(count, from + 50_000));
  db.close();
}

async function timed(fn) {
  const times = [];
  let result;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    result = await fn();
    times.push(performance.now() - t0);
  }
  return { ms: median(times), result };
}

const rows = [];
for (const size of sizes) {
  const dir = mkdtempSync(path.join(tmpdir(), 'postern-audit-bench-'));
  const file = path.join(dir, 'audit.db');
  const label = size >= 1e6 ? `${size / 1e6}M` : `${size / 1e3}k`;
  const targetMs = size > 1e6 ? 100 : 50;
  let t0 = performance.now();
  seed(file, size);
  const seedS = (performance.now() - t0) / 1000;
  console.log(
    `${label}: seeded in ${fmt(seedS)} s (${fmt(size / seedS / 1000, 0)}k events/s), ` +
      `${fmt(statSync(file).size / 2 ** 20, 0)} MiB`,
  );

  const store = new SqliteAuditStore(file, 'bench');
  const all = { from: new Date(start), to: new Date(start + spanMs), limit: pageSize };
  const page = (query) => store.search({ ...all, ...query });

  const first = await timed(() => page({}));
  // Walk to the middle of the log by keyset, then time the page found there.
  t0 = performance.now();
  let startKey = first.result.startKey;
  const middle = Math.floor(size / pageSize / 2);
  for (let i = 1; i < middle; i++) startKey = (await page({ startKey })).startKey;
  const walkS = (performance.now() - t0) / 1000;
  const deep = await timed(() => page({ startKey }));
  const byType = await timed(() => page({ eventTypes: ['user.login'] }));
  const dayFrom = start + spanMs / 2;
  const range = await timed(() =>
    page({ from: new Date(dayFrom), to: new Date(dayFrom + 24 * 3600 * 1000) }),
  );
  const text = await timed(() => page({ search: 'node-17"' }));
  console.log(`${label}: walked ${middle} pages by keyset in ${fmt(walkS)} s`);

  const row = (figure, { ms, result }, target = targetMs) =>
    rows.push({
      figure: `${label} ${figure} (${result.events.length} events)`,
      value: `${fmt(ms)} ms`,
      baseline: '-',
      compare: '-',
      target: target ? `<= ${target} ms` : 'none',
      verdict: target ? verdict(ms <= target) : '',
    });
  row('first page', first);
  row(`page ${middle + 1} by keyset`, deep);
  row('type filter user.login', byType);
  row('one-day range', range);
  row('text search', text, 0);
  await store.close();
  if (args.keep) console.log(`${label}: kept ${file}`);
  else rmSync(dir, { recursive: true, force: true });
}
console.log();
printTable(rows);
