import { randomUUID } from 'node:crypto';
import { labelClause, nodeListResponseSchema, type NodeJson } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { heartbeatsPrefix } from './nodes.store.js';

let app: TestApp;
let viewer: Record<string, string>;
let prodOnly: Record<string, string>;
const url = '/v1/webapi/sites/test-cluster/nodes';

/** 40 agents (every 4th one silent) and 6 agentless hosts; hostnames repeat to test tiebreaks. */
const agents = 40;
const agentless = 6;

beforeAll(async () => {
  app = await createTestApp();
  const { inventory, roles } = app.services;
  const role = (name: string, allow: object) =>
    roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      hostActor('test'),
    );
  await role('node-viewer', { node_labels: { '*': '*' }, logins: ['ubuntu', 'root'] });
  await role('prod-viewer', { node_labels: { env: 'prod' }, logins: ['deploy'] });
  viewer = await app.signIn(['node-viewer'], 'vera');
  prodOnly = await app.signIn(['prod-viewer'], 'pat');

  const silent: string[] = [];
  for (let i = 0; i < agents; i++) {
    const id = randomUUID();
    await inventory.heartbeat({
      id,
      hostname: `${i % 2 ? 'Web' : 'web'}-${i % 10}`,
      addr: '',
      subKind: 'postern',
      tunnel: true,
      os: 'linux',
      labels: { env: i % 3 === 0 ? 'prod' : 'dev', index: String(i) },
      cmdLabels: {
        arch: { command: ['uname', '-m'], period: '1h', result: i % 5 ? 'x86_64' : 'arm64' },
      },
      hostPublicKey: '',
    });
    if (i % 4 === 0) silent.push(id);
  }
  for (let i = 0; i < agentless; i++) {
    await inventory.addOpenSsh(
      { name: `db-${i}`, addr: `10.0.${i}.1:22`, labels: { env: i % 2 ? 'prod' : 'stage' } },
      hostActor('test'),
    );
  }
  // A node whose marker is gone is offline: what a dead agent looks like.
  for (const id of silent) await app.backend.delete(heartbeatsPrefix + id);
  await vi.waitFor(() => {
    const rows = inventory.rows();
    expect(rows).toHaveLength(agents + agentless);
    // Agentless hosts too: nothing checks them here, so none has answered.
    expect(rows.filter((row) => row.status === 'offline')).toHaveLength(silent.length + agentless);
  });
});
afterAll(() => app.close());

const list = (query: Record<string, string | number>, headers = viewer) =>
  app.server.inject({
    url,
    query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
    headers,
  });

/** Every page of a listing, following startKey. */
async function pages(query: Record<string, string | number>, headers = viewer) {
  const items: NodeJson[] = [];
  let startKey = '';
  let calls = 0;
  do {
    const res = await list({ ...query, ...(startKey ? { startKey } : {}) }, headers);
    expect(res.statusCode, res.body).toBe(200);
    const page = nodeListResponseSchema.parse(res.json());
    expect(page.items.length).toBeLessThanOrEqual(Number(query.limit));
    items.push(...page.items);
    startKey = page.startKey;
    expect(++calls).toBeLessThan(50);
  } while (startKey);
  return items;
}

const sortValue = (node: NodeJson, field: string) =>
  field === 'status' ? node.status : (node[field as 'hostname' | 'addr'] as string).toLowerCase();

describe('GET sites/:clusterId/nodes', () => {
  it('pages forward through every node exactly once, in order, for each sort', async () => {
    for (const field of ['hostname', 'addr', 'status']) {
      for (const dir of ['asc', 'desc']) {
        const items = await pages({ limit: 7, sort: `${field}:${dir}` });
        const ids = items.map((item) => item.id);
        expect(new Set(ids).size, `${field}:${dir}`).toBe(agents + agentless);
        expect(ids).toHaveLength(agents + agentless);
        const sign = dir === 'desc' ? -1 : 1;
        for (let i = 1; i < items.length; i++) {
          const [a, b] = [items[i - 1]!, items[i]!];
          const order =
            sortValue(a, field) < sortValue(b, field)
              ? -1
              : sortValue(a, field) > sortValue(b, field)
                ? 1
                : a.id < b.id
                  ? -1
                  : 1;
          expect(order * sign, `${field}:${dir} at ${i}`).toBe(-1);
        }
      }
    }
  });

  it('answers the first page with the total, the console shape and the caller logins', async () => {
    const res = await list({ limit: 15 });
    expect(res.statusCode).toBe(200);
    const page = nodeListResponseSchema.parse(res.json());
    expect(page.totalCount).toBe(agents + agentless);
    expect(page.items).toHaveLength(15);
    expect(page.startKey).not.toBe('');
    const web = page.items.find((item) => item.subKind === 'postern')!;
    expect(web).toMatchObject({ siteId: 'test-cluster', tunnel: true, addr: '', os: 'linux' });
    expect(web.sshLogins).toEqual(['root', 'ubuntu']);
    expect(web.tags.map((tag) => tag.name)).toEqual(['arch', 'env', 'index']);
    expect(web.lastHeartbeat).not.toBe('');
    const db = page.items.find((item) => item.subKind === 'openssh')!;
    // Never reached by the proxy's check (no check runs here): offline, never seen.
    expect(db).toMatchObject({ status: 'offline', lastHeartbeat: '', tunnel: false });

    const current = await app.server.inject({
      url: url.replace('test-cluster', '-current-'),
      headers: viewer,
    });
    expect(current.json().totalCount).toBe(agents + agentless);
    const other = await app.server.inject({
      url: url.replace('test-cluster', 'elsewhere'),
      headers: viewer,
    });
    expect(other.statusCode).toBe(404);
  });

  it('filters by search words and label clauses, and counts only the matches', async () => {
    const prod = await pages({ limit: 4, query: labelClause('env', 'prod') });
    const expectedProd = Math.ceil(agents / 3) + agentless / 2;
    expect(prod).toHaveLength(expectedProd);
    expect(
      prod.every((node) => node.tags.some((t) => t.name === 'env' && t.value === 'prod')),
    ).toBe(true);

    const both = await list({
      query: `${labelClause('env', 'prod')} && ${labelClause('arch', 'arm64')}`,
    });
    const expectedBoth = [...Array(agents).keys()].filter((i) => i % 3 === 0 && i % 5 === 0).length;
    expect(both.json().totalCount).toBe(expectedBoth);

    const words = await list({ search: 'WEB-3 x86' });
    expect(words.json().totalCount).toBe(
      [...Array(agents).keys()].filter((i) => i % 10 === 3 && i % 5).length,
    );
    const byAddr = await list({ search: '10.0.2' });
    expect(byAddr.json().items.map((item: NodeJson) => item.hostname)).toEqual(['db-2']);
    const byLabelName = await list({ search: 'index stage' });
    expect(byLabelName.json().totalCount).toBe(0);
    const stage = await list({ search: 'stage' });
    expect(stage.json().totalCount).toBe(agentless / 2);
  });

  it('hides nodes whose labels the caller roles do not match, before paging and counting', async () => {
    const items = await pages({ limit: 5, sort: 'hostname:desc' }, prodOnly);
    expect(items).toHaveLength(Math.ceil(agents / 3) + agentless / 2);
    expect(
      items.every((node) => node.tags.some((t) => t.name === 'env' && t.value === 'prod')),
    ).toBe(true);
    expect(items.every((node) => node.sshLogins.join() === 'deploy')).toBe(true);
    const first = await list({ limit: 1 }, prodOnly);
    expect(first.json().totalCount).toBe(items.length);
  });

  it('refuses a bad query, sort, limit or startKey with 400', async () => {
    const { startKey } = (await list({ limit: 3, sort: 'addr:asc' })).json();
    const tampered = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(startKey, 'base64url').toString()), id: 'x' }),
    ).toString('base64url');
    const bad: Record<string, string | number>[] = [
      { query: 'env=prod' },
      { query: 'labels["env"] == prod' },
      { sort: 'os:asc' },
      { limit: 0 },
      { limit: 1001 },
      { startKey: 'not a key!' },
      { startKey: 'bm90IGpzb24' },
      { startKey: Buffer.from('[1,2]').toString('base64url') },
      { startKey: tampered, sort: 'addr:asc' },
      { startKey, sort: 'hostname:asc' },
    ];
    for (const query of bad) {
      const res = await list(query);
      expect(res.statusCode, JSON.stringify(query)).toBe(400);
      expect(res.json().error.code).toBe('bad_parameter');
    }
  });

  it('answers 401 without a session and 403 to a user who may not list nodes', async () => {
    expect((await app.server.inject({ url })).statusCode).toBe(401);
    const nobody = await app.signIn(['editor'], 'ed');
    const res = await app.server.inject({ url, headers: nobody });
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe('access denied: list on nodes is not allowed');
  });
});
