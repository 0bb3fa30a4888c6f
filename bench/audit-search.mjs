#!/usr/bin/env node
// Audit search at scale: seeds N events into a fresh SQLite audit store, then times
// 5000-event pages through the built store (`packages/server/dist`), the same code the API runs.
// Run after `npm run build`. Targets: a page within 50 ms at 1M events and 100 ms at 10M.
//
// Text searches are timed twice on the same file: through the store as it is (the text index
// racing the scan), and through the plain LIKE scan alone (`textSearch: 'scan'`, the query the
// store ran before it had the index), which is the baseline. The file is seeded the way an old
// log would be found, without the index, so opening the store times the backfill; then the cost
// of the index on writes (batches of 500, single emits, one retention batch) is measured with it
// and with a store that leaves it alone (`textIndexWrites: false`), on the same file.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, median, printTable, verdict } from './support/report.mjs';

const usage = `Usage: npm run build && npm run bench:audit [-- --sizes 1e6] [--runs 7] [--pg]

  --sizes           event counts to seed, comma-separated (default 1e6,1e7; 1e7 takes ~10 min
                    and 4 GB)
  --runs            timed repetitions per page; the median is reported (default 7)
  --baseline-runs   repetitions of each scan baseline (default 3: a rare text scans all rows)
  --keep            leave the seeded database files and PostgreSQL schema in place (named)
  --pg              also seed 1M events into a scratch schema of PostgreSQL and time the
                    text searches there (with pg_trgm, against the scan); dropped afterwards
  --pg-url          the PostgreSQL to use (default postgres://postgres@127.0.0.1:5432/test)`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1e6,1e7' },
    runs: { type: 'string', default: '7' },
    'baseline-runs': { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
    pg: { type: 'boolean', default: false },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const sizes = args.sizes.split(',').map((size) => Math.round(Number(size)));
const runs = Number(args.runs);
const baselineRuns = Number(args['baseline-runs']);
if (
  sizes.some((size) => !Number.isSafeInteger(size) || size < 10_000) ||
  !(runs >= 1) ||
  !(baselineRuns >= 1)
) {
  console.error(usage);
  process.exit(2);
}

const dist = path.join(root, 'packages/server/dist/modules/audit');
const load = (file) =>
  import(pathToFileURL(path.join(dist, file)).href).catch(() => {
    console.error(`No built store in ${dist}: run npm run build first.`);
    process.exit(2);
  });
const { SqliteAuditStore } = await load('audit.sqlite.js');
const { TEXT_INDEX_TRIGGERS: TEXT_INDEX_TRIGGERS_CREATE } = await load('audit-text.sqlite.js');
const serverRequire = createRequire(path.join(root, 'packages/server/package.json'));
const Database = serverRequire('better-sqlite3');

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

// What the text index adds to a file; dropping it gives the schema of a log made before it.
const TEXT_INDEX_TRIGGERS = `
  DROP TRIGGER IF EXISTS audit_events_text_changed;`;
const TEXT_INDEX_OBJECTS = `${TEXT_INDEX_TRIGGERS}
  DROP TABLE IF EXISTS audit_text_index;
  DROP TABLE IF EXISTS audit_text_slices;
  DROP TABLE IF EXISTS audit_time_blocks;
  DROP TABLE IF EXISTS audit_text_changed;`;

/** Seeds `count` events evenly over a year, 50,000 per transaction, into a log without the index. */
function seed(file, count) {
  new SqliteAuditStore(file, 'bench').close(); // creates the schema and indexes
  const db = new Database(file);
  db.exec(TEXT_INDEX_OBJECTS);
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

async function timed(fn, times = runs) {
  const all = [];
  let result;
  for (let i = 0; i < times; i++) {
    const t0 = performance.now();
    result = await fn();
    all.push(performance.now() - t0);
  }
  return { ms: median(all), result };
}

const seconds = (t0) => (performance.now() - t0) / 1000;
const rows = [];
const row = (figure, { ms, result }, targetMs, baseline) =>
  rows.push({
    figure: `${figure} (${result.events.length} events)`,
    value: `${fmt(ms)} ms`,
    baseline: baseline ? `${fmt(baseline.ms)} ms` : '-',
    compare: baseline ? `${fmt(baseline.ms / ms)}x faster` : '-',
    target: targetMs ? `<= ${targetMs} ms` : 'none',
    verdict: targetMs ? verdict(ms <= targetMs) : '',
  });
const note = (figure, value) =>
  rows.push({ figure, value, baseline: '-', compare: '-', target: 'none', verdict: '' });

/**
 * The text searches, each timed through `indexed` and through `scan` on the same data: a text
 * in 1 event of 200 (a host), one in every event (the login), one in a single event, a common
 * text within a rare type, and a text within one day. Results must be the same both ways.
 */
async function textSearches(label, size, targetMs, indexed, scan) {
  const all = { from: new Date(start), to: new Date(start + spanMs), limit: pageSize };
  const day = start + spanMs / 2;
  const oneDay = { from: new Date(day), to: new Date(day + 24 * 3600 * 1000) };
  const searches = [
    ['text "node-17\\"" (1 in 200)', { search: 'node-17"' }],
    ['text "root" (in every event)', { search: 'root' }],
    [
      `text "uid-${Math.floor(size / 3)}\\"" (one event)`,
      { search: `uid-${Math.floor(size / 3)}"` },
    ],
    ['text "root" in lock.created', { search: 'root', eventTypes: ['lock.created'] }],
    ['text "node-17\\"" in one day', { search: 'node-17"', ...oneDay }],
  ];
  for (const [figure, query] of searches) {
    const q = { ...all, ...query };
    const fast = await timed(() => indexed(q));
    const slow = await timed(() => scan(q), baselineRuns);
    const same =
      JSON.stringify(fast.result.events.map((e) => e.uid)) ===
      JSON.stringify(slow.result.events.map((e) => e.uid));
    if (!same) throw new Error(`${label} ${figure}: the index and the scan disagree`);
    row(`${label} ${figure}`, fast, targetMs, slow);
  }
}

const batchSize = 500;

/** A batch of a database session's statements, as the database proxy audits them. */
function statements(sid) {
  return Array.from({ length: batchSize }, () => ({
    event: 'db.session.query',
    code: 'TDB02I',
    time: new Date(),
    user: 'alice',
    db_service: 'orders',
    db_protocol: 'postgres',
    db_uri: '127.0.0.1:5432',
    db_name: 'bench',
    db_user: 'postgres',
    sid,
    db_query: `SELECT abalance FROM pgbench_accounts WHERE aid = ${Math.floor(Math.random() * 1e5)};`,
  }));
}

/**
 * What the index costs writes, on the same file in the same run: first through a store that
 * keeps it, then through one that leaves it alone (`textIndexWrites: false`) on the file without
 * the index's triggers, as a release without the index wrote. The figure the index is judged by:
 * CPU per event of emitBatch in batches of 500 (how the database proxy writes a session's
 * statements, each about 450 bytes of JSON). Then single emits (a transaction each, as the server
 * writes most events) and one retention batch.
 */
async function writeCosts(label, file) {
  // Over 9 segments of the index (16,384 ids each), so its writes of complete ones count too.
  const batches = 300;
  const emits = 2000;
  const sid = randomUUID();
  const measure = async (store) => {
    try {
      await store.emitBatch(statements(sid)); // warm: statements prepared, index in memory
      let cpuUs = 0;
      let longestMs = 0;
      for (let i = 0; i < batches; i++) {
        const events = statements(sid);
        const before = process.cpuUsage();
        const t0 = performance.now();
        await store.emitBatch(events);
        longestMs = Math.max(longestMs, performance.now() - t0);
        const used = process.cpuUsage(before);
        cpuUs += used.user + used.system;
      }
      const t0 = performance.now();
      for (let i = 0; i < emits; i++)
        await store.emit({ event: 'exec', code: 'T3002I', user: `user${i % 500}`, command: 'ls' });
      const emitUs = ((performance.now() - t0) * 1000) / emits;
      const t1 = performance.now();
      const removed = await store.removeOlderThan(new Date(start + spanMs), 10_000);
      const retentionMs = performance.now() - t1;
      return { us: cpuUs / (batches * batchSize), longestMs, emitUs, removed, retentionMs };
    } finally {
      await store.close();
    }
  };
  // Two rounds each, in turns, so neither side is always the one with the warmer process.
  const exec = (sql) => {
    const db = new Database(file);
    db.exec(sql);
    db.close();
  };
  const both = [];
  for (let round = 0; round < 2; round++) {
    exec(TEXT_INDEX_TRIGGERS_CREATE);
    const indexed = await measure(new SqliteAuditStore(file, 'bench'));
    exec(TEXT_INDEX_TRIGGERS);
    const plain = await measure(new SqliteAuditStore(file, 'bench', { textIndexWrites: false }));
    both.push({ indexed, plain });
  }
  exec(TEXT_INDEX_TRIGGERS_CREATE);
  const mean = (side, key) => (both[0][side][key] + both[1][side][key]) / 2;
  const max = (side, key) => Math.max(both[0][side][key], both[1][side][key]);
  const indexed = {
    us: mean('indexed', 'us'),
    longestMs: max('indexed', 'longestMs'),
    emitUs: mean('indexed', 'emitUs'),
    removed: both[0].indexed.removed,
    retentionMs: mean('indexed', 'retentionMs'),
  };
  const plain = {
    us: mean('plain', 'us'),
    longestMs: max('plain', 'longestMs'),
    emitUs: mean('plain', 'emitUs'),
    retentionMs: mean('plain', 'retentionMs'),
  };
  rows.push({
    figure: `${label} emitBatch of ${batchSize}, CPU per event (2 x ${batches * batchSize} events)`,
    value: `${fmt(indexed.us, 1)} µs`,
    baseline: `${fmt(plain.us, 1)} µs`,
    compare: `${fmt(indexed.us / plain.us, 2)}x the cost`,
    target: '<= 1.5x',
    verdict: verdict(indexed.us <= plain.us * 1.5),
  });
  note(
    `${label} emitBatch of ${batchSize}, longest`,
    `${fmt(indexed.longestMs)} ms, ${fmt(plain.longestMs)} ms without the index`,
  );
  note(
    `${label} emit, a transaction each (${emits})`,
    `${fmt(indexed.emitUs, 0)} µs, ${fmt(plain.emitUs, 0)} µs without the index`,
  );
  note(
    `${label} retention batch (${indexed.removed} events)`,
    `${fmt(indexed.retentionMs, 0)} ms, ${fmt(plain.retentionMs, 0)} ms without the index`,
  );
}

for (const size of sizes) {
  const dir = mkdtempSync(path.join(tmpdir(), 'postern-audit-bench-'));
  const file = path.join(dir, 'audit.db');
  const label = size >= 1e6 ? `${size / 1e6}M` : `${size / 1e3}k`;
  const targetMs = size > 1e6 ? 100 : 50;
  let t0 = performance.now();
  seed(file, size);
  const seedS = seconds(t0);
  const plainMiB = statSync(file).size / 2 ** 20;
  t0 = performance.now();
  const store = new SqliteAuditStore(file, 'bench'); // backfills the text index
  const backfillS = seconds(t0);
  const scanStore = new SqliteAuditStore(file, 'bench', { textSearch: 'scan' });
  console.log(
    `${label}: seeded without the text index in ${fmt(seedS)} s ` +
      `(${fmt(size / seedS / 1000, 0)}k events/s), ${fmt(plainMiB, 0)} MiB; ` +
      `backfilled at open in ${fmt(backfillS)} s (${fmt(size / backfillS / 1000, 0)}k events/s), ` +
      `${fmt(statSync(file).size / 2 ** 20, 0)} MiB with it`,
  );
  note(`${label} backfill of the text index at open`, `${fmt(backfillS)} s`);

  const all = { from: new Date(start), to: new Date(start + spanMs), limit: pageSize };
  const page = (query) => store.search({ ...all, ...query });
  const first = await timed(() => page({}));
  // Walk to the middle of the log by keyset, then time the page found there.
  t0 = performance.now();
  let startKey = first.result.startKey;
  const middle = Math.floor(size / pageSize / 2);
  for (let i = 1; i < middle; i++) startKey = (await page({ startKey })).startKey;
  const walkS = seconds(t0);
  const deep = await timed(() => page({ startKey }));
  const byType = await timed(() => page({ eventTypes: ['user.login'] }));
  const dayFrom = start + spanMs / 2;
  const range = await timed(() =>
    page({ from: new Date(dayFrom), to: new Date(dayFrom + 24 * 3600 * 1000) }),
  );
  console.log(`${label}: walked ${middle} pages by keyset in ${fmt(walkS)} s`);
  row(`${label} first page`, first, targetMs);
  row(`${label} page ${middle + 1} by keyset`, deep, targetMs);
  row(`${label} type filter user.login`, byType, targetMs);
  row(`${label} one-day range`, range, targetMs);
  await textSearches(
    label,
    size,
    targetMs,
    (q) => store.search(q),
    (q) => scanStore.search(q),
  );
  await Promise.all([store.close(), scanStore.close()]);
  // A process's first text search also indexes, in its memory, the newest events (those the
  // file's index does not hold yet): what a CLI or a restarted server pays once.
  t0 = performance.now();
  const fresh = new SqliteAuditStore(file, 'bench');
  const once = await fresh.search({ ...all, search: `uid-${Math.floor(size / 3)}"` });
  note(
    `${label} open and first text search (${once.events.length} event)`,
    `${fmt(performance.now() - t0)} ms`,
  );
  await fresh.close();
  await writeCosts(label, file);
  if (args.keep) console.log(`${label}: kept ${file}`);
  else rmSync(dir, { recursive: true, force: true });
}

if (args.pg) await postgres(1_000_000);
console.log();
printTable(rows);

/**
 * What pg_trgm costs PostgreSQL's writes: emitBatch of 500 statements, wall time per event (the
 * work is the database's, not this process's), with the trigram index and after dropping it.
 */
async function pgWriteCost(label, store, dropIndex) {
  const batches = 100;
  const sid = randomUUID();
  const measure = async () => {
    await store.emitBatch(statements(sid));
    const t0 = performance.now();
    for (let i = 0; i < batches; i++) await store.emitBatch(statements(sid));
    return ((performance.now() - t0) * 1000) / (batches * batchSize);
  };
  const indexed = await measure();
  await dropIndex();
  const plain = await measure();
  rows.push({
    figure: `${label} emitBatch of ${batchSize}, wall time per event`,
    value: `${fmt(indexed, 1)} µs`,
    baseline: `${fmt(plain, 1)} µs`,
    compare: `${fmt(indexed / plain, 2)}x the cost`,
    target: 'none',
    verdict: '',
  });
}

/**
 * The same text searches on PostgreSQL: 1M events made by one INSERT .. SELECT into a scratch
 * schema, the store opened on it (which builds the trigram index: timed), then each search
 * through the store and through the query worded for no index (the scan).
 */
async function postgres(size) {
  const pg = serverRequire('pg');
  const { PostgresAuditStore, postgresSearchSql } = await load('audit.postgres.js');
  const { checkQuery, encodeStartKey } = await load('audit.common.js');
  const schema = `postern_bench_${process.pid}`;
  const table = `"${schema}".audit_events`;
  const pool = new pg.Pool({ connectionString: args['pg-url'], max: 2 });
  const label = `pg ${size / 1e6}M`;
  try {
    // The store makes the schema; its index on the text is dropped so the build can be timed.
    await (await PostgresAuditStore.open({ url: args['pg-url'], schema }, 'bench')).close();
    await pool.query(`DROP INDEX "${schema}".audit_events_folded_text`);
    let t0 = performance.now();
    await pool.query(
      `INSERT INTO ${table} (time, event_type, code, user_name, session_id, data)
        SELECT t, ty, co, 'user' || (i % 500), 'sid-' || (i / 40),
          ('{"event":"' || ty || '","code":"' || co || '","time":"' ||
          to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","uid":"uid-' || i ||
          '","user":"user' || (i % 500) || '","sid":"sid-' || (i / 40) ||
          '","cluster_name":"bench","login":"root","server_hostname":"node-' || (i % 200) || '"}')::json
        FROM generate_series(0, $1::bigint - 1) AS i,
          LATERAL (SELECT to_timestamp(($2::bigint + (i * $3::bigint) / $1::bigint) / 1000.0) AS t,
            ($4::text[])[1 + i % 100] AS ty, ($5::text[])[1 + i % 100] AS co) AS v`,
      [size, start, spanMs, weighted.map(([type]) => type), weighted.map(([, code]) => code)],
    );
    const seedS = seconds(t0);
    t0 = performance.now();
    const store = await PostgresAuditStore.open({ url: args['pg-url'], schema }, 'bench');
    const buildS = seconds(t0);
    await pool.query(`ANALYZE ${table}`);
    console.log(
      `${label}: seeded in ${fmt(seedS)} s, trigram index built at open in ${fmt(buildS)} s`,
    );
    note(`${label} trigram index build at open`, `${fmt(buildS)} s`);
    const scan = async (query) => {
      const checked = checkQuery(query);
      const { sql, params } = postgresSearchSql(table, checked, { textIndex: false });
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SET LOCAL enable_bitmapscan = off');
        const { rows: found } = await client.query(sql, params);
        await client.query('ROLLBACK');
        const page = found.slice(0, checked.limit);
        const last = page.at(-1);
        const more = found.length > checked.limit && last;
        return {
          events: page.map((r) => r.data),
          startKey: more ? encodeStartKey({ timeMs: Number(last.time_ms), id: last.id }) : '',
        };
      } finally {
        client.release();
      }
    };
    try {
      await textSearches(label, size, 50, (q) => store.search(q), scan);
      await pgWriteCost(label, store, () =>
        pool.query(`DROP INDEX "${schema}".audit_events_folded_text`),
      );
    } finally {
      await store.close();
    }
  } finally {
    if (args.keep) console.log(`${label}: kept the schema ${schema}`);
    else await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  }
}
