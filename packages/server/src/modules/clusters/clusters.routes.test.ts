import { apiPaths, clusterListSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedHeaders } from '../../testing/signed-request.testkit.js';

/**
 * The clusters list, for the console (`sites`, a web session) and for `postern clusters` (signed
 * with the login's certificate). Any signed-in user may see it: there is no ACL verb to need.
 */
let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ clusterName: 'home' });
  await app.services.users.create({ name: 'nora', roles: [] }, 'test');
});
afterAll(() => app?.close());

describe('the clusters list', () => {
  it('is 401 without a session or a signature', async () => {
    expect((await app.server.inject({ url: apiPaths.sites })).statusCode).toBe(401);
    expect((await app.server.inject({ url: apiPaths.cliClusters })).statusCode).toBe(401);
  });

  it('lists this cluster first for a signed request of a user with no roles', async () => {
    const path = apiPaths.cliClusters;
    const res = await app.server.inject({
      url: path,
      headers: signedHeaders(app, 'nora', { path }),
    });
    expect(res.statusCode, res.body).toBe(200);
    const [first, ...rest] = clusterListSchema.parse(res.json());
    expect([first?.name, first?.status, rest]).toEqual(['home', 'online', []]);
  });
});
