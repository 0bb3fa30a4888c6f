import {
  apiPaths,
  kubeClusterListResponseSchema,
  kubeClusterResourceSchema,
  kubeResourcesResponseSchema,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
} from '../../testing/fake-kube/fake-kube-apiserver.testkit.js';

// The console's Kubernetes calls: the list as the roles let a user see it, and the namespaces and
// pods of one cluster for Exec in browser's picker (read from the fake API server as the user);
// the CLI's signed calls refuse what is not signed.

let app: TestApp;
let fake: FakeKubeApiServer;
let webTeam: Record<string, string>;
let everything: Record<string, string>;
let serversOnly: Record<string, string>;
const cluster = 'test-cluster';

beforeAll(async () => {
  fake = await startFakeKubeApiServer({ namespaces: ['default', 'prod', 'kube-system'] });
  fake.pods.add({
    name: 'web-1',
    namespace: 'prod',
    containers: [{ name: 'app' }, { name: 'log' }],
  });
  fake.pods.add({ name: 'db-1', namespace: 'prod' });
  const spec = { server: fake.url, ca_cert: fake.caPem, credentials: { token: fake.token } };
  app = await createTestApp({
    kubeClusters: [
      kubeClusterResourceSchema.parse({
        kind: 'kube_cluster',
        metadata: { name: 'prod', description: 'Production', labels: { env: 'prod' } },
        spec,
      }),
      kubeClusterResourceSchema.parse({
        kind: 'kube_cluster',
        metadata: { name: 'staging', labels: { env: 'staging' } },
        spec,
      }),
    ],
  });
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      hostActor('test'),
    );
  await role('web-team', {
    kubernetes_labels: { env: 'prod' },
    kubernetes_groups: ['web', '{{internal.kubernetes_groups}}'],
    kubernetes_resources: [{ kind: 'pod', namespace: 'prod', name: 'web-*', verbs: ['*'] }],
  });
  await role('kube-all', {
    kubernetes_labels: { '*': '*' },
    kubernetes_users: ['admin'],
  });
  await role('servers-only', { node_labels: { '*': '*' }, logins: ['root'] });
  await app.services.users.create(
    { name: 'wendy', roles: ['web-team'], traits: { kubernetes_groups: ['oncall'] } },
    'test',
  );
  webTeam = await app.signIn(['web-team'], 'wendy');
  everything = await app.signIn(['kube-all'], 'root-admin');
  serversOnly = await app.signIn(['servers-only'], 'sam');
});
afterAll(async () => {
  await app?.close();
  await fake?.stop();
});

describe('GET /sites/{clusterId}/kubernetes', () => {
  const url = apiPaths.kubernetes(cluster);

  it('needs a session (401) and kubeServers list (403)', async () => {
    expect((await app.server.inject({ url })).statusCode).toBe(401);
    expect((await app.server.inject({ url, headers: serversOnly })).statusCode).toBe(403);
  });

  it('lists what the roles reach, with the users and groups they allow there', async () => {
    const mine = await app.server.inject({ url, headers: webTeam });
    expect(mine.statusCode).toBe(200);
    expect(kubeClusterListResponseSchema.parse(mine.json()).items).toEqual([
      {
        kind: 'kube_cluster',
        name: 'prod',
        description: 'Production',
        labels: [{ name: 'env', value: 'prod' }],
        kubernetes_users: [],
        kubernetes_groups: ['oncall', 'web'],
        tunnel: false,
        status: expect.stringMatching(/^(online|offline)$/),
      },
    ]);
    const all = await app.server.inject({ url: `${url}?sort=name:desc`, headers: everything });
    expect(kubeClusterListResponseSchema.parse(all.json()).items.map((c) => c.name)).toEqual([
      'staging',
      'prod',
    ]);
  });

  it('searches by name and description and refuses bad input by name', async () => {
    const found = await app.server.inject({ url: `${url}?search=produc`, headers: everything });
    expect(kubeClusterListResponseSchema.parse(found.json()).items.map((c) => c.name)).toEqual([
      'prod',
    ]);
    const bad = await app.server.inject({ url: `${url}?sort=size:asc`, headers: everything });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/^sort/);
  });
});

describe('GET /sites/{clusterId}/kubernetes/{name}/resources', () => {
  const url = (name: string, query: string) => `${apiPaths.kubeResources(cluster, name)}?${query}`;

  it('needs a session (401) and kubeServers read (403)', async () => {
    expect((await app.server.inject({ url: url('prod', 'kind=namespace') })).statusCode).toBe(401);
    const denied = await app.server.inject({
      url: url('prod', 'kind=namespace'),
      headers: serversOnly,
    });
    expect(denied.statusCode).toBe(403);
  });

  it('offers the namespaces whose pods the roles reach, and those pods, read as the user', async () => {
    const namespaces = await app.server.inject({
      url: url('prod', 'kind=namespace'),
      headers: webTeam,
    });
    expect(namespaces.statusCode, namespaces.body).toBe(200);
    expect(kubeResourcesResponseSchema.parse(namespaces.json()).items.map((n) => n.name)).toEqual([
      'prod',
    ]);
    const pods = await app.server.inject({
      url: url('prod', 'kind=pod&kubeNamespace=prod'),
      headers: webTeam,
    });
    expect(kubeResourcesResponseSchema.parse(pods.json()).items).toEqual([
      { name: 'web-1', namespace: 'prod', containers: ['app', 'log'], status: 'Running' },
    ]);
    const asked = fake.requests.findLast(
      (request) => request.path === '/api/v1/namespaces/prod/pods',
    );
    expect(asked?.headers.impersonate).toEqual({
      'impersonate-user': ['wendy'],
      'impersonate-group': ['oncall', 'web'],
    });
  });

  it("answers a namespace outside the roles with the roles' refusal, and an unknown cluster 404", async () => {
    const refused = await app.server.inject({
      url: url('prod', 'kind=pod&kubeNamespace=kube-system'),
      headers: webTeam,
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toBe(
      'your roles do not allow list on pods in namespace "kube-system"',
    );
    const hidden = await app.server.inject({
      url: url('staging', 'kind=namespace'),
      headers: webTeam,
    });
    expect(hidden.statusCode).toBe(404);
    const bad = await app.server.inject({ url: url('prod', 'kind=secret'), headers: webTeam });
    expect(bad.statusCode).toBe(400);
  });
});

describe("the CLI's signed calls", () => {
  it('refuse a request without a certificate signature (401)', async () => {
    expect((await app.server.inject({ url: apiPaths.kubeCatalog })).statusCode).toBe(401);
    const login = await app.server.inject({ method: 'POST', url: apiPaths.kubeLogin('prod') });
    expect(login.statusCode).toBe(401);
  });
});
