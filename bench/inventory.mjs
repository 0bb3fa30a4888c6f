#!/usr/bin/env node
// The node list at scale: seeds N agentless servers through the inventory's own write path
// (`addOpenSsh`, on a SQLite backend in a temp dir), then times the listing requests the Servers
// page and the CLI make, through the built modules (`packages/server/dist`), the code the API
// runs. Baseline: the same requests on a 1,000-server inventory in the same run. Run after
// `npm run build`. Target: first page, a deep keyset page and sort=hostname:desc within 50 ms p95.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fmt, printTable, quantile, verdict } from './support/report.mjs';

const usage = `Usage: npm run build && npm run bench:inventory [-- --nodes 100000] [--runs 40]

  --nodes     servers to seed (default 100000; seeding takes a few minutes)
  --baseline  servers in the baseline inventory (default 1000)
  --runs      timed repetitions per request; p95 and the longest event-loop block are reported`;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    nodes: { type: 'string', default: '100000' },
    baseline: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '40' },
    help: { type: 'boolean', default: false },
  },
});
const [size, baselineSize, runs] = [args.nodes, args.baseline, args.runs].map(Number);
if (args.help || ![size, baselineSize, runs].every((n) => Number.isSafeInteger(n) && n >= 1)) {
  console.log(usage);
  process.exit(args.help ? 0 : 2);
}

const dist = path.join(root, 'packages/server/dist');
const load = (file) =>
  import(pathToFileURL(path.join(dist, file)).href).catch(() => {
    console.error(`No built server at ${dist}: run npm run build first.`);
    process.exit(2);
  });
const { InventoryService } = await load('wings/servers/nodes/inventory.service.js');
const { ClustersService } = await load('modules/clusters/clusters.service.js');
const { SqliteBackend } = await load('backend/sqlite.js');
const { SqliteAuditStore } = await load('modules/audit/audit.sqlite.js');
const { hostActor } = await load('access-control/access/actor.js');
const { RoleSet, roleSchema } = await load('access-control/rbac/index.js');

// A user who sees two servers in three (env prod or dev) and logs in as root: every record is
// checked against their labels, as for anyone who is not an admin.
const role = roleSchema.parse({
  kind: 'role',
  version: 'v7',
  metadata: { name: 'bench-viewer' },
  spec: { allow: { node_labels: { env: ['prod', 'dev'] }, logins: ['root'] } },
});
const viewer = new RoleSet([role], { name: 'bench', traits: {} });
const admin = hostActor('bench');
const kinds = ['web', 'db', 'cache', 'api'];
const envs = ['prod', 'dev', 'stage'];

const server = (i, count) => ({
  // Hostnames in an order unrelated to insertion, so no order comes for free.
  name: `${kinds[i % 4]}-${(i * 7919) % count}`,
  addr: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}:22`,
  labels: { env: envs[i % 3], team: `team-${i % 40}` },
});

/** A started inventory over `count` servers written through `addOpenSsh`. */
async function seeded(count) {
  const dir = mkdtempSync(path.join(tmpdir(), 'postern-inventory-bench-'));
  const backend = new SqliteBackend(path.join(dir, 'backend.db'));
  const audit = new SqliteAuditStore(path.join(dir, 'audit.db'), 'bench');
  const inventory = new InventoryService(backend, audit);
  await inventory.start();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await inventory.addOpenSsh(server(i, count), admin);
  while (inventory.nodeCount() < count) await sleep(50);
  const seconds = (performance.now() - t0) / 1000;
  console.log(`${count} servers seeded through addOpenSsh in ${fmt(seconds)} s`);
  const addresses = { publicAddr: () => ({ host: '127.0.0.1', port: 3080 }) };
  const clusters = new ClustersService({ clusterName: 'bench' }, addresses, inventory);
  const close = async () => {
    await inventory.close();
    await backend.close();
    await audit.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { inventory, clusters, close, added: count };
}

/** p95 of `runs` calls, and the longest the event loop was held meanwhile. */
async function timed(fn, before = async () => {}) {
  const times = [];
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let result;
  for (let i = 0; i < runs; i++) {
    await before();
    await sleep(2);
    loop.enable();
    const t0 = performance.now();
    result = await fn();
    times.push(performance.now() - t0);
    await sleep(2);
    loop.disable();
  }
  return { p95: quantile(times, 0.95), first: times[0], blockMs: loop.max / 1e6, result };
}

const page = { search: '', query: '', startKey: '', limit: 15 };

/** The requests measured, on one inventory. */
async function measure({ inventory, clusters }, count) {
  const list = (criteria) => inventory.list({ ...page, ...criteria }, viewer);
  // The middle of the list by keyset, reached with big pages (a start key does not depend on them).
  let startKey = '';
  for (let seen = 0; seen < count / 3; seen += 1000) {
    startKey = list({ startKey, limit: 1000 }).startKey;
  }
  const figures = {
    'first page': await timed(() => list({})),
    'deep keyset page': await timed(() => list({ startKey })),
    'sort=hostname:desc': await timed(() => list({ sort: { field: 'hostname', dir: 'desc' } })),
    'sort=status:asc': await timed(() => list({ sort: { field: 'status', dir: 'asc' } })),
    'search "web-12"': await timed(() => list({ search: 'web-12' })),
    'label query team-7': await timed(() => list({ query: 'labels["team"] == "team-7"' })),
    'GET /sites': await timed(() => clusters.list()),
  };
  // A server added before every request: the order and the counts follow the writes.
  const addOne = addingOne(inventory, count);
  figures['first page, a write before each'] = await timed(() => list({}), addOne);
  return figures;
}

function addingOne(inventory, count) {
  let next = count;
  return async () => {
    const before = inventory.nodeCount();
    await inventory.addOpenSsh(server(next++, count), admin);
    while (inventory.nodeCount() === before) await sleep(5);
  };
}

const base = await seeded(baselineSize);
const baseline = await measure(base, baselineSize);
await base.close();
const big = await seeded(size);
const figures = await measure(big, size);
await big.close();

const label = size >= 1000 ? `${size / 1000}k` : String(size);
const targeted = new Set(['first page', 'deep keyset page', 'sort=hostname:desc']);
const rows = Object.entries(figures).map(([name, figure]) => {
  const base = baseline[name];
  const target = targeted.has(name) ? 50 : undefined;
  return {
    figure: `${label} ${name} (${figure.result?.items?.length ?? 1} rows): p95 / block / 1st`,
    value: `${fmt(figure.p95)} / ${fmt(figure.blockMs)} / ${fmt(figure.first)} ms`,
    baseline: `${fmt(base.p95)} / ${fmt(base.blockMs)} ms`,
    compare: `${fmt(figure.p95 / Math.max(base.p95, 0.01))}x`,
    target: target ? `<= ${target} ms p95` : 'none',
    verdict: target ? verdict(figure.p95 <= target) : '',
  };
});
console.log(`\nbaseline: the same requests on ${baselineSize} servers\n`);
printTable(rows);
