import { randomUUID } from 'node:crypto';
import { apiPaths, clusterJsonSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { RoleSet, roleSchema } from '../../../access-control/rbac/index.js';
import { InventoryService } from './inventory.service.js';
import type { ListCriteria, NodeAccess, NodeRow } from './node-list.js';

// The list walks ordered indexes kept current from the watch. These tests change the records
// under it (renames, removals, additions, expiry by the clock) and compare every page with the
// plain answer: filter everything, sort everything, slice.

let app: TestApp;
let inventory: InventoryService;
const admin = hostActor('cli:test');
const prodOnly = new RoleSet(
  [
    roleSchema.parse({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'prod' },
      spec: { allow: { node_labels: { env: 'prod' }, logins: ['deploy'] } },
    }),
  ],
  { name: 'pat', traits: {} },
);
const recordTtlMs = 10 * 60_000;
const agentIds: string[] = [];

const beat = (id: string, i: number, hostname = `${i % 2 ? 'Web' : 'web'}-${i % 7}`) =>
  inventory.heartbeat({
    id,
    hostname,
    addr: '',
    subKind: 'postern',
    tunnel: true,
    os: 'linux',
    labels: { env: i % 3 ? 'dev' : 'prod', index: String(i) },
    cmdLabels: {},
    hostPublicKey: '',
  });

const addHost = (i: number) =>
  inventory.addOpenSsh(
    { name: `db-${i % 5}`, addr: `10.0.${i}.1:22`, labels: { env: i % 2 ? 'prod' : 'stage' } },
    admin,
  );

beforeAll(async () => {
  app = await createTestApp();
  inventory = new InventoryService(app.backend, app.audit, {
    now: app.clock.now,
    recordTtlMs,
    recordRefreshMs: 1000,
  });
  await inventory.start();
  for (let i = 0; i < 30; i++) {
    agentIds.push(randomUUID());
    await beat(agentIds[i]!, i);
  }
  for (let i = 0; i < 20; i++) await addHost(i);
  await vi.waitFor(() => expect(inventory.rows()).toHaveLength(50));
});
afterAll(async () => {
  await inventory.close();
  await app.close();
});

const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What a listing must return: the live rows the viewer may see and the filter admits, sorted. */
function expected(access: NodeAccess | null, criteria: Omit<ListCriteria, 'startKey' | 'limit'>) {
  const { field, dir } = criteria.sort ?? { field: 'hostname', dir: 'asc' };
  const words = criteria.search.toLowerCase().split(/\s+/).filter(Boolean);
  const clause = /labels\["(.+)"\] == "(.+)"/.exec(criteria.query);
  const value = (row: NodeRow) =>
    field === 'status' ? row.status : row.node.spec[field].toLowerCase();
  const texts = (row: NodeRow) =>
    [row.node.spec.hostname, row.node.spec.addr, ...Object.entries(row.labels).flat()].map((t) =>
      t.toLowerCase(),
    );
  return inventory
    .rows()
    .filter((row) => !access || access.canAccess('node', row))
    .filter((row) => !clause || row.labels[clause[1]!] === clause[2])
    .filter((row) => words.every((word) => texts(row).some((t) => t.includes(word))))
    .sort(
      (a, b) =>
        (dir === 'desc' ? -1 : 1) *
        (text(value(a), value(b)) || text(a.node.metadata.name, b.node.metadata.name)),
    )
    .map((row) => row.node.metadata.name);
}

/** Every page of the listing, checking each page's count against the plain answer. */
function walkAll(access: NodeAccess | null, criteria: Omit<ListCriteria, 'startKey' | 'limit'>) {
  const ids: string[] = [];
  const total = expected(access, criteria).length;
  let startKey = '';
  do {
    const page = inventory.list({ ...criteria, startKey, limit: 4 }, access);
    expect(page.totalCount).toBe(total);
    ids.push(...page.items.map((row) => row.node.metadata.name));
    startKey = page.startKey;
  } while (startKey);
  return ids;
}

function checkEveryListing() {
  for (const access of [null, prodOnly]) {
    for (const field of ['hostname', 'addr', 'status'] as const) {
      for (const dir of ['asc', 'desc'] as const) {
        for (const filter of [
          { search: '', query: '' },
          { search: 'WEB', query: '' },
          { search: '', query: 'labels["env"] == "prod"' },
        ]) {
          const criteria = { ...filter, sort: { field, dir } };
          const what = `${access ? 'prod viewer' : 'admin'} ${field}:${dir} ${JSON.stringify(filter)}`;
          expect(walkAll(access, criteria), what).toEqual(expected(access, criteria));
        }
      }
    }
  }
}

describe('the node list on ordered indexes', () => {
  it('pages exactly like a full sort, with exact counts, as records change and expire', async () => {
    checkEveryListing();

    // Renamed (a heartbeat with another hostname), removed and added records move in every order.
    for (let i = 0; i < 5; i++) await beat(agentIds[i]!, i, `A-renamed-${i}`);
    const gone = inventory.rows().filter((row) => row.node.spec.subKind === 'openssh');
    for (const row of gone.slice(0, 5)) await inventory.remove(row.node.metadata.name, admin);
    for (let i = 20; i < 26; i++) await addHost(i);
    await vi.waitFor(() => {
      expect(inventory.rows()).toHaveLength(51);
      expect(
        inventory.rows().filter((row) => row.node.spec.hostname.startsWith('A-')),
      ).toHaveLength(5);
    });
    checkEveryListing();

    // Half the agents beat again later; the others' records expire by the clock alone.
    app.clock.advance(recordTtlMs / 2);
    const renewedUntil = app.clock.now() + recordTtlMs;
    for (let i = 0; i < 30; i += 2) {
      await beat(agentIds[i]!, i, i < 5 ? `A-renamed-${i}` : undefined);
    }
    await vi.waitFor(() =>
      expect(
        Date.parse(inventory.get(agentIds[28]!)?.metadata.expires ?? ''),
      ).toBeGreaterThanOrEqual(renewedUntil),
    );
    const before = inventory.nodeCount();
    app.clock.advance(recordTtlMs / 2 + 1000);
    expect(inventory.nodeCount()).toBe(before - 15);
    expect(inventory.rows()).toHaveLength(51 - 15);
    checkEveryListing();
  });

  it('continues after the last row of a page even when that row is gone meanwhile', async () => {
    const criteria = {
      search: '',
      query: '',
      sort: { field: 'hostname' as const, dir: 'asc' as const },
    };
    const first = inventory.list({ ...criteria, startKey: '', limit: 3 }, null);
    const last = first.items.at(-1)!.node;
    const after = expected(null, criteria).slice(3, 6);
    await inventory.remove(last.metadata.name, admin);
    await vi.waitFor(() => expect(inventory.get(last.metadata.name)).toBeUndefined());
    const next = inventory.list({ ...criteria, startKey: first.startKey, limit: 3 }, null);
    expect(next.items.map((row) => row.node.metadata.name)).toEqual(after);
  });

  it('lists only live agentless hosts with an address for the reachability check', () => {
    const hosts = inventory
      .agentlessHosts()
      .map((node) => node.metadata.name)
      .sort();
    const openssh = inventory
      .rows()
      .filter((row) => row.node.spec.subKind === 'openssh')
      .map((row) => row.node.metadata.name)
      .sort();
    expect(openssh.length).toBeGreaterThan(0);
    expect(hosts).toEqual(openssh);
  });
});

describe('the API', () => {
  // Its own app: the records above are in the first app's storage.
  let api: TestApp;
  beforeAll(async () => {
    api = await createTestApp();
  });
  afterAll(() => api.close());

  it('answers a list with no limit with one console page, and counts sites from memory', async () => {
    const { inventory: served } = api.services;
    for (let i = 0; i < 20; i++) {
      await served.addOpenSsh({ name: `api-${i}`, addr: `10.1.${i}.1:22`, labels: {} }, admin);
    }
    await vi.waitFor(() => expect(served.nodeCount()).toBe(20));
    const headers = await api.signIn(['access'], 'alice');

    const res = await api.server.inject({ url: apiPaths.nodes('test-cluster'), headers });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items).toHaveLength(15);
    expect(res.json().startKey).not.toBe('');
    expect(res.json().totalCount).toBe(20);

    const list = vi.spyOn(api.backend, 'list');
    const sites = await api.server.inject({ url: apiPaths.sites, headers });
    expect(sites.statusCode, sites.body).toBe(200);
    expect(clusterJsonSchema.parse(sites.json()[0]).nodeCount).toBe(20);
    expect(list).not.toHaveBeenCalled();
    list.mockRestore();
  });
});
