import { apiPaths, userContextSchema } from '@postern/contracts';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { connectLeaf } from './trusted-clusters.testkit.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSchemas, testPostgresUrl } from '../../backend/testing/postgres.testkit.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

// A root of two proxies on one PostgreSQL schema (as behind a load balancer) and a leaf told
// only the first one's address: the leaf learns the second from the root's list of proxies and
// keeps a tunnel to each, so a user on either proxy reaches the leaf.

const schemas = new TestSchemas();
let first: TestApp;
let second: TestApp;
let secondUrl: string;
let leaf: TestApp;

beforeAll(async () => {
  await schemas.connect();
  const storage = { type: 'postgres' as const, url: testPostgresUrl, schema: schemas.newName() };
  const options = {
    storage,
    audit: storage,
    clusterName: 'root',
    publicAddr: '127.0.0.1:0',
    insecureNoTls: true,
  };
  first = await createTestApp(options);
  second = await createTestApp(options);
  const firstUrl = (await first.listenOnLoopback()).baseUrl;
  secondUrl = (await second.listenOnLoopback()).baseUrl;
  leaf = await createTestApp({ clusterName: 'leaf', heartbeatIntervalMs: 300 });
  await connectLeaf(first, firstUrl, leaf, '[{remote: access, local: [access]}]');
}, 60_000);

afterAll(async () => {
  await leaf?.close();
  await second?.close();
  await first?.close();
  await schemas.dropAll();
});

describe('a leaf and a root of several proxies', () => {
  it('keeps a tunnel to every root proxy, and a user on the second one reaches the leaf', async () => {
    await eventually(
      () =>
        first.services.tunnels.serves({ kind: 'cluster', name: 'leaf' }) &&
        second.services.tunnels.serves({ kind: 'cluster', name: 'leaf' }),
      10_000,
      'a tunnel to each root proxy',
    );
    const res = await fetch(secondUrl + apiPaths.context('leaf'), {
      headers: await second.signIn(['access'], 'bob'),
    });
    expect(res.status).toBe(200);
    expect(userContextSchema.parse(await res.json()).userName).toBe('bob');
  });
});
