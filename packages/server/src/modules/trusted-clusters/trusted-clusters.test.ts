import { apiPaths, clusterListSchema, trustedClusterItemSchema } from '@postern/contracts';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { trustedClusterToken } from './trusted-clusters.testkit.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

/**
 * Two real Postern clusters in one process: a root listening on loopback and a leaf that trusts
 * it. The leaf's calls to the root and its tunnel go over real HTTP and WebSockets.
 */

const resourceYaml = (o: {
  name?: string;
  token: string;
  addr: string;
  enabled?: boolean;
  revision?: string;
}) => `kind: trusted_cluster
version: v2
metadata:
  name: ${o.name ?? 'root'}
${o.revision ? `  revision: '${o.revision}'\n` : ''}spec:
  enabled: ${o.enabled ?? true}
  token: '${o.token}'
  web_proxy_addr: ${o.addr}
  role_map:
    - remote: access
      local: [access]
`;

describe('trusted clusters between a root and a leaf', () => {
  let root: TestApp;
  let leaf: TestApp;
  let rootUrl: string;
  let leafAdmin: Record<string, string>;

  const tokenOnRoot = (roles?: ('Trusted_cluster' | 'Node')[]) => trustedClusterToken(root, roles);
  const post = (app: TestApp, headers: Record<string, string>, content: string) =>
    app.server.inject({
      method: 'POST',
      url: apiPaths.trustedClusters,
      headers,
      payload: { content },
    });
  const list = async () => {
    const res = await leaf.server.inject({ url: apiPaths.trustedClusters, headers: leafAdmin });
    expect(res.statusCode).toBe(200);
    return trustedClusterItemSchema.array().parse(res.json());
  };
  const rootSites = async () => {
    const headers = await root.signIn(['access']);
    return clusterListSchema.parse(
      (await root.server.inject({ url: apiPaths.sites, headers })).json(),
    );
  };
  const rootAudit = async (code: string) =>
    (
      await root.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 100 })
    ).events.filter((e) => e.code === code);

  beforeAll(async () => {
    root = await createTestApp({ clusterName: 'root', heartbeatIntervalMs: 300 });
    rootUrl = (await root.listenOnLoopback()).baseUrl;
    leaf = await createTestApp({ clusterName: 'leaf', heartbeatIntervalMs: 300 });
    leafAdmin = await leaf.signIn(['editor']);
  });
  afterAll(async () => {
    await leaf?.close();
    await root?.close();
  });

  it('refuses a bad token, a wrong root name and the placeholder, and stores nothing', async () => {
    const badToken = await post(leaf, leafAdmin, resourceYaml({ token: 'nope', addr: rootUrl }));
    expect(badToken.statusCode).toBe(400);
    expect(badToken.json().message).toMatch(
      /the root cluster refused to trust this cluster: the join token is not valid/,
    );
    expect(await rootAudit('TJ002E')).toHaveLength(1);

    const nodeToken = await tokenOnRoot(['Node']);
    const wrongRole = await post(
      leaf,
      leafAdmin,
      resourceYaml({ token: nodeToken, addr: rootUrl }),
    );
    expect(wrongRole.statusCode).toBe(400);

    const wrongName = await post(
      leaf,
      leafAdmin,
      resourceYaml({ name: 'elsewhere', token: await tokenOnRoot(), addr: rootUrl }),
    );
    expect(wrongName.statusCode).toBe(400);
    expect(wrongName.json().message).toMatch(/is named root, not elsewhere/);

    const placeholder = await post(
      leaf,
      leafAdmin,
      resourceYaml({ token: '**********', addr: rootUrl }),
    );
    expect(placeholder.statusCode).toBe(400);
    const closedPort = await post(
      leaf,
      leafAdmin,
      resourceYaml({ token: 'x', addr: 'http://127.0.0.1:1' }),
    );
    expect(closedPort.statusCode).toBe(400);
    expect(closedPort.json().message).toMatch(
      /cannot reach the root cluster at http:\/\/127\.0\.0\.1:1/,
    );
    expect(await list()).toEqual([]);
    expect((await rootSites()).map((c) => c.name)).toEqual(['root']);
  });

  it('joins with a token: the leaf keeps a tunnel, and the root lists it online with its count', async () => {
    const res = await post(
      leaf,
      leafAdmin,
      resourceYaml({ token: await tokenOnRoot(), addr: rootUrl }),
    );
    expect(res.statusCode).toBe(200);
    const item = trustedClusterItemSchema.parse(res.json());
    expect(item).toMatchObject({
      id: 'trusted_cluster:root',
      kind: 'trusted_cluster',
      name: 'root',
    });
    // The token never leaves the server.
    expect(item.content).toContain("token: '**********'");

    await eventually(
      async () => (await list())[0]?.status?.state === 'connected',
      10_000,
      'the tunnel',
    );
    await eventually(
      async () => (await rootSites()).find((c) => c.name === 'leaf')?.status === 'online',
      10_000,
      'the leaf online on the root',
    );
    const sites = await rootSites();
    expect(sites.map((c) => c.name)).toEqual(['root', 'leaf']);
    await eventually(
      async () => (await rootSites())[1]?.proxyVersion !== '',
      10_000,
      'a heartbeat from the leaf',
    );
    expect(await rootAudit('TJ002I')).toHaveLength(1);
    const leafAudit = await leaf.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 10,
    });
    expect(leafAudit.events.find((e) => e.code === 'T7000I')).toMatchObject({ name: 'root' });
  });

  it('lets the root reach the leaf API through the tunnel', async () => {
    const stream = await root.services.tunnels.dial({ kind: 'cluster', name: 'leaf' });
    const answer = await new Promise<string>((resolve, reject) => {
      let text = '';
      stream.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        if (text.includes('\r\n\r\n') && text.includes('}')) resolve(text);
      });
      stream.on('error', reject);
      stream.write(`GET ${apiPaths.ping} HTTP/1.1\r\nHost: leaf\r\nConnection: close\r\n\r\n`);
    });
    stream.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('"cluster_name":"leaf"');
  });

  it('refuses the same leaf name with another key', async () => {
    const impostor = await createTestApp({ clusterName: 'leaf' });
    try {
      const headers = await impostor.signIn(['editor']);
      const res = await post(
        impostor,
        headers,
        resourceYaml({ token: await tokenOnRoot(), addr: rootUrl }),
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/already trusted with another key/);
    } finally {
      await impostor.close();
    }
  });

  it('disabling closes the tunnel; enabling opens it again without a new token', async () => {
    const [current] = await list();
    const revision = /revision: '?([^'\n]+)'?/.exec(current!.content)?.[1];
    const put = (enabled: boolean, rev: string) =>
      leaf.server.inject({
        method: 'PUT',
        url: apiPaths.trustedCluster('root'),
        headers: leafAdmin,
        payload: {
          content: resourceYaml({ token: '**********', addr: rootUrl, enabled, revision: rev }),
        },
      });
    const off = await put(false, revision!);
    expect(off.statusCode).toBe(200);
    expect(trustedClusterItemSchema.parse(off.json()).status).toEqual({ state: 'disabled' });
    await eventually(
      () => !root.services.tunnels.serves({ kind: 'cluster', name: 'leaf' }),
      10_000,
      'the tunnel to close',
    );
    const again = /revision: '?([^'\n]+)'?/.exec(
      trustedClusterItemSchema.parse(off.json()).content,
    )?.[1];
    expect((await put(true, again!)).statusCode).toBe(200);
    await eventually(
      () => root.services.tunnels.serves({ kind: 'cluster', name: 'leaf' }),
      10_000,
      'the tunnel again',
    );
  });

  it('a root that stops trusting the leaf closes its tunnel and refuses it back', async () => {
    await root.services.trustedClusters.remoteClusters.store.delete('leaf');
    await eventually(
      () => !root.services.tunnels.serves({ kind: 'cluster', name: 'leaf' }),
      10_000,
      'the tunnel to close',
    );
    await eventually(
      async () => (await list())[0]?.status?.error?.includes('not trusted here') ?? false,
      20_000,
      'the leaf to be refused',
    );
    expect((await rootSites()).map((c) => c.name)).toEqual(['root']);
  });

  it('deleting the trusted cluster ends the link and is audited', async () => {
    const res = await leaf.server.inject({
      method: 'DELETE',
      url: apiPaths.trustedCluster('root'),
      headers: leafAdmin,
    });
    expect(res.statusCode).toBe(200);
    expect(await list()).toEqual([]);
    const events = await leaf.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 10,
    });
    expect(events.events.find((e) => e.code === 'T7001I')).toMatchObject({ name: 'root' });
  });
});

describe('trusted cluster routes', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await createTestApp();
  });
  afterAll(() => app.close());

  const calls = [
    { method: 'GET' as const, url: apiPaths.trustedClusters },
    {
      method: 'POST' as const,
      url: apiPaths.trustedClusters,
      payload: { content: 'kind: trusted_cluster' },
    },
    { method: 'PUT' as const, url: apiPaths.trustedCluster('root'), payload: { content: 'x: 1' } },
    { method: 'DELETE' as const, url: apiPaths.trustedCluster('root') },
  ];

  it.each(calls)('$method $url: 401 without a session, 403 without the verb', async (call) => {
    expect((await app.server.inject(call)).statusCode).toBe(401);
    const headers = await app.signIn(['access']);
    const denied = await app.server.inject({ ...call, headers });
    expect(denied.statusCode).toBe(403);
  });

  it('points at the line of a bad field and refuses this cluster as its own root', async () => {
    const headers = await app.signIn(['editor']);
    const res = await app.server.inject({
      method: 'POST',
      url: apiPaths.trustedClusters,
      headers,
      payload: {
        content:
          'kind: trusted_cluster\nversion: v2\nmetadata:\n  name: root\nspec:\n  token: x\n  web_proxy_addr: a:1\n  role_map: []\n',
      },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/line 8: spec\.role_map/);
    const self = await app.server.inject({
      method: 'POST',
      url: apiPaths.trustedClusters,
      headers,
      payload: { content: resourceYaml({ name: 'test-cluster', token: 't', addr: 'a:1' }) },
    });
    expect(self.statusCode).toBe(400);
    expect(self.json().message).toMatch(/own name/);
  });
});
