import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Item } from '../../backend/index.js';
import { SqliteBackend } from '../../backend/sqlite.js';
import { RoleSet, roleSchema } from '../../access-control/rbac/index.js';
import type { ResourceListCriteria } from './page-walk.js';
import { ResourceInventory, type ResourceRow } from './resource-inventory.js';
import type { ResourceKind } from './resource-kind.js';

// The generic inventory run for a kind made up here, web apps, to show that nothing in it is
// written for nodes: records and heartbeat markers are written straight to a SQLite file backend
// under the kind's own prefixes, and every listing is compared with the plain answer.

interface AppRecord {
  kind: 'app';
  metadata: { name: string; labels: Record<string, string>; expires?: string };
  spec: { uri: string };
}

const heartbeatTtlMs = 60_000;
const appKind: ResourceKind<AppRecord, 'name' | 'uri'> = {
  accessKind: 'app',
  recordsPrefix: '/apps/',
  heartbeatsPrefix: '/app_heartbeats/',
  parse: (item: Item) => JSON.parse(item.value) as AppRecord,
  idOf: (app) => app.metadata.name,
  isId: (id) => /^[a-z0-9-]{1,64}$/.test(id),
  labelsOf: (app) => app.metadata.labels,
  searchTextsOf: (app) => [app.metadata.name, app.spec.uri],
  sortValues: { name: (app) => app.metadata.name, uri: (app) => app.spec.uri },
  expiresOf: (app) => app.metadata.expires,
  heartbeatTtlMs,
};

let dir: string;
let backend: SqliteBackend;
let inventory: ResourceInventory<AppRecord, 'name' | 'uri'>;
let offset = 0;
const now = () => Date.now() + offset;
const iso = (ms: number) => new Date(ms).toISOString();
const count = 40;

/** An app record as an app service would write it: it lives a day unless heartbeats renew it. */
const app = (i: number): AppRecord => ({
  kind: 'app',
  metadata: {
    name: `app-${String(i).padStart(2, '0')}`,
    labels: { env: ['prod', 'dev', 'stage'][i % 3]!, team: i % 2 ? 'red' : 'blue' },
    expires: iso(now() + 24 * 3600_000),
  },
  // URIs in an order unrelated to the names, so the uri order is its own.
  spec: { uri: `https://${(i * 7) % count}.apps.example` },
});
const write = (record: AppRecord) =>
  backend.upsert({
    key: appKind.recordsPrefix + record.metadata.name,
    value: JSON.stringify(record),
    expires: new Date(record.metadata.expires!),
  });

const viewerOf = (envs: string[]) =>
  new RoleSet(
    [
      roleSchema.parse({
        kind: 'role',
        version: 'v7',
        metadata: { name: 'apps' },
        spec: { allow: { app_labels: { env: envs } } },
      }),
    ],
    { name: 'pat', traits: {} },
  );

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-inventory-'));
  backend = new SqliteBackend(path.join(dir, 'backend.db'), { pollIntervalMs: 20 });
  inventory = new ResourceInventory(backend, appKind, { now });
  // Half the records before the first list, half through the watch afterwards.
  for (let i = 0; i < count / 2; i++) await write(app(i));
  await inventory.start();
  for (let i = count / 2; i < count; i++) await write(app(i));
  // Every even app reports in.
  for (let i = 0; i < count; i += 2) await inventory.markOnline(app(i).metadata.name);
  await vi.waitFor(() => {
    expect(inventory.count()).toBe(count);
    expect(inventory.rows().filter((row) => row.status === 'online')).toHaveLength(count / 2);
  });
});
afterAll(async () => {
  await inventory.close();
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});

type Criteria = Omit<ResourceListCriteria<'name' | 'uri'>, 'startKey' | 'limit'>;
const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Follows start keys through every page; returns the names in order and the counts seen. */
function allPages(criteria: Criteria, access: RoleSet | null, limit: number) {
  const names: string[] = [];
  const totals = new Set<number>();
  let startKey = '';
  do {
    const page = inventory.list({ ...criteria, startKey, limit }, access, sortDefault);
    expect(page.rows.length).toBeLessThanOrEqual(limit);
    names.push(...page.rows.map((row) => row.resource.metadata.name));
    totals.add(page.totalCount);
    startKey = page.startKey;
  } while (startKey);
  return { names, totals: [...totals] };
}
const sortDefault = { field: 'name' as const, dir: 'asc' as const };

/** The plain answer: filter every live row, sort, no paging. */
function expected(criteria: Criteria, access: RoleSet | null): string[] {
  const { field, dir } = criteria.sort ?? sortDefault;
  const value = (row: ResourceRow<AppRecord>) =>
    field === 'status' ? row.status : appKind.sortValues[field](row.resource).toLowerCase();
  const words = criteria.search.toLowerCase().split(/\s+/).filter(Boolean);
  const clause = /labels\["(.+)"\] == "(.+)"/.exec(criteria.query);
  return inventory
    .rows()
    .filter((row) => !access || access.canAccess('app', row))
    .filter((row) => !clause || row.labels[clause[1]!] === clause[2])
    .filter((row) => {
      const haystack = [row.resource.metadata.name, row.resource.spec.uri]
        .concat(Object.entries(row.labels).flat())
        .join('\n')
        .toLowerCase();
      return words.every((word) => haystack.includes(word));
    })
    .sort((a, b) => {
      const order =
        text(value(a), value(b)) || text(a.resource.metadata.name, b.resource.metadata.name);
      return dir === 'asc' ? order : -order;
    })
    .map((row) => row.resource.metadata.name);
}

describe('the generic inventory, for a kind other than nodes', () => {
  const cases: Criteria[] = [
    { search: '', query: '' },
    { search: '', query: '', sort: { field: 'name', dir: 'desc' } },
    { search: '', query: '', sort: { field: 'uri', dir: 'asc' } },
    { search: '', query: '', sort: { field: 'status', dir: 'desc' } },
    { search: 'APPS.example 1', query: '' },
    { search: '', query: 'labels["team"] == "red"', sort: { field: 'uri', dir: 'desc' } },
  ];

  it('pages through every order, search and label query with start keys', () => {
    for (const criteria of cases) {
      const want = expected(criteria, null);
      const { names, totals } = allPages(criteria, null, 7);
      expect(names, JSON.stringify(criteria)).toEqual(want);
      expect(totals).toEqual([want.length]);
    }
    expect(expected(cases[4]!, null).length).toBeGreaterThan(0);
  });

  it('filters by the viewer’s app_labels before paging, so pages are full and counts honest', () => {
    const viewer = viewerOf(['prod']);
    for (const criteria of cases) {
      const want = expected(criteria, viewer);
      const first = inventory.list({ ...criteria, startKey: '', limit: 5 }, viewer, sortDefault);
      // A page is filled from what the viewer may see, never left short by hidden records.
      expect(first.rows).toHaveLength(Math.min(5, want.length));
      expect(first.totalCount).toBe(want.length);
      expect(first.rows.every((row) => row.labels.env === 'prod')).toBe(true);
      expect(allPages(criteria, viewer, 5).names).toEqual(want);
    }
    expect(
      inventory.list({ search: '', query: '', startKey: '', limit: 100 }, viewer, sortDefault)
        .totalCount,
    ).toBe(Math.ceil(count / 3));
  });

  it('refuses a start key it did not give out, or one of another order', () => {
    const page = inventory.list(
      { search: '', query: '', startKey: '', limit: 3 },
      null,
      sortDefault,
    );
    const criteria = { search: '', query: '', limit: 3 };
    expect(() =>
      inventory.list(
        { ...criteria, startKey: page.startKey, sort: { field: 'uri', dir: 'asc' } },
        null,
        sortDefault,
      ),
    ).toThrow(/another sort order/);
    expect(() =>
      inventory.list({ ...criteria, startKey: 'bm90LWEta2V5' }, null, sortDefault),
    ).toThrow(/not a key this listing gave out/);
  });

  it('shows an app offline, not gone, once its marker’s TTL passes; drops it when its record expires', async () => {
    const name = app(0).metadata.name;
    const status = () => inventory.rows().find((row) => row.resource.metadata.name === name);
    expect(status()?.status).toBe('online');
    const lastHeartbeat = status()!.lastHeartbeat;
    offset += heartbeatTtlMs + 1;
    expect(status()).toMatchObject({ status: 'offline', lastHeartbeat });
    expect(inventory.count()).toBe(count);
    // The status sort sees the change at once: no app is online any more.
    const byStatus = inventory.list(
      { search: '', query: '', startKey: '', limit: count, sort: { field: 'status', dir: 'desc' } },
      null,
      sortDefault,
    );
    expect(byStatus.rows.every((row) => row.status === 'offline')).toBe(true);
    // A heartbeat brings it back.
    await inventory.markOnline(name);
    await vi.waitFor(() => expect(status()?.status).toBe('online'));
    // A day later the record itself has expired: the clock decides before the backend sweeps it.
    offset += 24 * 3600_000;
    expect(status()).toBeUndefined();
    expect(inventory.get(name)).toBeUndefined();
    expect(inventory.count()).toBe(0);
  });
});
