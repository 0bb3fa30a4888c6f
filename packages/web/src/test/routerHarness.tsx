import { clientConfigSchema, type UserContext } from '@postern/contracts';
import { render } from '@testing-library/react';
import { createMemoryRouter } from 'react-router';
import { vi } from 'vitest';
import { storeToken } from '../api/credentials';
import { App } from '../app/App';
import { appRoutes } from '../app/router';
import { clusterFixtures } from '../features/clusters/fixtures';
import { lockFixtures } from '../features/locks/fixtures';
import { roleFixtures } from '../features/roles/fixtures';
import { trustedClusterFixtures } from '../features/trustedClusters/fixtures';
import { userFixtures } from '../features/users/fixtures';
import { presetAcls, userContextFixture } from './userContexts';

/**
 * The whole console on a memory router, its calls answered by URL: what the route tests render.
 * Call `vi.unstubAllGlobals()` after each test (fetch is stubbed).
 */

export const config = clientConfigSchema.parse({ proxyCluster: 'root.example.com' });

export function signIn() {
  storeToken({
    accessToken: 'tok',
    expiresIn: 600,
    created: Date.now(),
    sessionExpires: '',
    sessionInactiveTimeout: 0,
  });
}

export const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

export const contextUrl = '/v1/webapi/sites/root.example.com/context';

/** What the private pages load, by URL. */
export function serverData(url: string): Response {
  if (url === '/v1/webapi/sites') return json(clusterFixtures);
  if (url === '/v1/webapi/users') return json(userFixtures);
  if (url === '/v1/webapi/roles') return json(roleFixtures);
  if (url === '/v1/webapi/trustedcluster') return json(trustedClusterFixtures);
  if (url === '/v1/webapi/sites/root.example.com/locks') return json(lockFixtures);
  return json({ error: { message: 'not found', code: 'not_found' } }, 404);
}

export function renderApp(
  path: string,
  respond: (url: string) => Response = serverData,
  context: UserContext | (() => Response) = userContextFixture(presetAcls.editor),
) {
  const fetchStub = vi.fn(async (url: string) => {
    if (url === contextUrl) return typeof context === 'function' ? context() : json(context);
    return respond(url);
  });
  vi.stubGlobal('fetch', fetchStub);
  const router = createMemoryRouter(appRoutes(), { initialEntries: [path] });
  render(<App router={router} config={config} />);
  return router;
}
