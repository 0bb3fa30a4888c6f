import {
  apiPaths,
  appResourceSchema,
  databaseResourceSchema,
  desktopResourceSchema,
  kubeClusterResourceSchema,
  unifiedResourceId,
  unifiedResourceName,
  unifiedResourcesResponseSchema,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { auditEventsOf } from '../../testing/audit-events.testkit.js';

// Unified resources: every kind the user may list, in one list, each item as its own kind's list
// shows it; RBAC and the ACL per kind, search and label clauses across kinds, sorted and paged.
// Nothing here is dialled: the addresses are closed loopback ports.

let app: TestApp;
const admin = hostActor('test');
const labels = (env: string) => ({ env });

beforeAll(async () => {
  app = await createTestApp({
    apps: [
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name: 'grafana', labels: labels('prod') },
        spec: { uri: 'http://127.0.0.1:9' },
      }),
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name: 'lab-notebook', labels: labels('lab') },
        spec: { uri: 'http://127.0.0.1:13' },
      }),
    ],
    databases: [
      databaseResourceSchema.parse({
        kind: 'db',
        metadata: { name: 'orders', labels: labels('prod') },
        spec: { protocol: 'postgres', uri: '127.0.0.1:9' },
      }),
    ],
    kubeClusters: [
      kubeClusterResourceSchema.parse({
        kind: 'kube_cluster',
        metadata: { name: 'kube-main', labels: labels('prod') },
        spec: { server: 'https://127.0.0.1:9', credentials: { token: 'unused' } },
      }),
    ],
    desktops: [
      desktopResourceSchema.parse({
        kind: 'desktop',
        metadata: { name: 'design-box', labels: labels('prod') },
        spec: { addr: '127.0.0.1:9', protocol: 'vnc' },
      }),
    ],
  });
  await app.services.inventory.addOpenSsh(
    { name: 'api-1', addr: '127.0.0.1:17', labels: labels('prod') },
    admin,
  );
  const role = (name: string, spec: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec }),
      admin,
    );
  const everywhere = { env: 'prod' };
  await role('prod-all', {
    allow: {
      node_labels: everywhere,
      app_labels: everywhere,
      db_labels: everywhere,
      kubernetes_labels: everywhere,
      windows_desktop_labels: everywhere,
      logins: ['root'],
    },
  });
  // Reaches the prod apps, but may not list databases even though their labels would match.
  await role('prod-apps', {
    allow: { app_labels: everywhere, db_labels: everywhere },
    deny: { rules: [{ resources: ['db_server', 'db'], verbs: ['list'] }] },
  });
  // Reaches the lab app, and may request what prod-all reaches.
  await role('lab-requester', {
    allow: { app_labels: { env: 'lab' }, request: { search_as_roles: ['prod-all'] } },
  });
});
afterAll(() => app?.close());

async function list(roles: string[] | null, query: Record<string, string> = {}) {
  const headers = roles ? await app.signIn(roles, `u-${roles.join('-')}`) : {};
  const search = new URLSearchParams(query).toString();
  return app.server.inject({
    url: `${apiPaths.unifiedResources('test-cluster')}${search ? `?${search}` : ''}`,
    headers,
  });
}
const page = async (roles: string[], query: Record<string, string> = {}) => {
  const res = await list(roles, query);
  expect(res.statusCode, res.body).toBe(200);
  return unifiedResourcesResponseSchema.parse(res.json());
};
const names = (items: { kind: string }[]) =>
  items.map((item) => `${item.kind}:${unifiedResourceName(item as never)}`);

describe('GET sites/{clusterId}/resources', () => {
  it('lists every kind the user may reach, by name, each as its own list shows it', async () => {
    const all = await page(['prod-all'], { limit: '50' });
    expect(names(all.items)).toEqual([
      'node:api-1',
      'windows_desktop:design-box',
      'app:grafana',
      'kube_cluster:kube-main',
      'db:orders',
    ]);
    expect(all.totalCount).toBe(5);
    const node = all.items.find((item) => item.kind === 'node');
    // A server as the Servers page has it, with the logins this user may use there.
    expect(node).toMatchObject({ hostname: 'api-1', sshLogins: ['root'], siteId: 'test-cluster' });
  });

  it('keeps to the kinds whose list the ACL allows, and to what the roles reach', async () => {
    const apps = await page(['prod-apps'], { limit: '50' });
    expect(names(apps.items)).toEqual(['app:grafana']);
  });

  it('filters by kind, search words and label clauses, and sorts by kind', async () => {
    const kinds = await page(['prod-all'], { kinds: 'app,db', limit: '50' });
    expect(names(kinds.items)).toEqual(['app:grafana', 'db:orders']);
    const searched = await page(['prod-all'], { search: 'kube' });
    expect(names(searched.items)).toEqual(['kube_cluster:kube-main']);
    const labelled = await page(['prod-all'], { query: 'labels["env"] == "lab"' });
    expect(labelled.items).toEqual([]);
    const byKind = await page(['prod-all'], { sort: 'kind:desc', limit: '50' });
    expect(byKind.items.map((item) => item.kind)).toEqual([
      'windows_desktop',
      'node',
      'kube_cluster',
      'db',
      'app',
    ]);
  });

  it('pages with the key it gives, to the end', async () => {
    const first = await page(['prod-all'], { limit: '2' });
    expect(names(first.items)).toEqual(['node:api-1', 'windows_desktop:design-box']);
    expect(first.startKey).toBe('2');
    const second = await page(['prod-all'], { limit: '2', startKey: first.startKey });
    const third = await page(['prod-all'], { limit: '2', startKey: second.startKey });
    expect(names(third.items)).toEqual(['db:orders']);
    expect(third.startKey).toBe('');
    expect(third.totalCount).toBe(5);
  });

  it('refuses bad input, no session (401) and a cluster it does not serve (404)', async () => {
    expect((await list(['prod-all'], { kinds: 'node,printer' })).statusCode).toBe(400);
    expect((await list(['prod-all'], { startKey: 'abc' })).json().message).toContain(
      'startKey: not a key this list gave',
    );
    expect((await list(['prod-all'], { query: 'labels[' })).statusCode).toBe(400);
    expect((await list(null)).statusCode).toBe(401);
    const headers = await app.signIn(['prod-all'], 'someone');
    const elsewhere = await app.server.inject({
      url: apiPaths.unifiedResources('elsewhere'),
      headers,
    });
    expect(elsewhere.statusCode).toBe(404);
  });
});

describe('pinned and requestable resources', () => {
  const pin = async (user: string, ids: string[]) => {
    const headers = await app.signIn(['prod-all'], user);
    const res = await app.server.inject({
      method: 'PUT',
      url: apiPaths.userClusterPreferences('test-cluster'),
      headers,
      payload: { pinnedResources: { resourceIds: ids } },
    });
    expect(res.statusCode, res.body).toBe(200);
  };
  const pinnedPage = async (user: string, query: Record<string, string> = {}) => {
    const headers = await app.signIn(['prod-all'], user);
    const search = new URLSearchParams({ pinnedOnly: 'true', limit: '50', ...query });
    const res = await app.server.inject({
      url: `${apiPaths.unifiedResources('test-cluster')}?${search}`,
      headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    return unifiedResourcesResponseSchema.parse(res.json());
  };

  it('lists only what the caller pinned, by the ids the list gives, with the other filters', async () => {
    const all = await page(['prod-all'], { limit: '50' });
    const node = all.items.find((item) => item.kind === 'node')!;
    await pin('pia', [unifiedResourceId(node), 'db/orders', 'app/gone-since']);
    const pinned = await pinnedPage('pia');
    expect(names(pinned.items)).toEqual(['node:api-1', 'db:orders']);
    expect(pinned.totalCount).toBe(2);
    expect(names((await pinnedPage('pia', { kinds: 'db' })).items)).toEqual(['db:orders']);
    // Another user's pins are not hers, and pins never widen what the roles reach.
    expect((await pinnedPage('quin')).items).toEqual([]);
    const narrow = await app.signIn(['prod-apps'], 'pia');
    const res = await app.server.inject({
      url: `${apiPaths.unifiedResources('test-cluster')}?pinnedOnly=true`,
      headers: narrow,
    });
    expect(res.json().items).toEqual([]);
  });

  it('adds what the search-as roles would reach, marked, and audits the search', async () => {
    const all = await page(['lab-requester'], { includedResourceMode: 'all', limit: '50' });
    const marked = all.items.map((item) => `${names([item])[0]}${item.requiresRequest ? '*' : ''}`);
    expect(marked).toEqual([
      'node:api-1*',
      'windows_desktop:design-box*',
      'app:grafana*',
      'kube_cluster:kube-main*',
      'app:lab-notebook',
      'db:orders*',
    ]);
    const requestable = await page(['lab-requester'], {
      includedResourceMode: 'requestable',
      kinds: 'app',
    });
    expect(names(requestable.items)).toEqual(['app:grafana']);
    const accessible = await page(['lab-requester'], { kinds: 'app' });
    expect(names(accessible.items)).toEqual(['app:lab-notebook']);
    expect(accessible.items[0]!.requiresRequest).toBeUndefined();
    const searches = (await auditEventsOf(app, 'T5004I')).filter(
      (event) => event.user === 'u-lab-requester',
    );
    expect(searches.map((event) => event.resource_type).sort()).toEqual([
      'app',
      'node,app,db,kube_cluster,windows_desktop',
    ]);
  });

  it('refuses requestable resources to a user without search-as roles (403)', async () => {
    const res = await list(['prod-all'], { includedResourceMode: 'all' });
    expect(res.statusCode).toBe(403);
    expect((await list(['prod-all'], { includedResourceMode: 'some' })).statusCode).toBe(400);
    expect((await list(['prod-all'], { pinnedOnly: 'yes' })).statusCode).toBe(400);
  });
});
