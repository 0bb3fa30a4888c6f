import { clientConfigSchema, type AuthConfig, type ClientConfig } from '@postern/contracts';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { storeToken } from '../api/credentials';
import { ClientConfigContext } from '../app/clientConfig';
import { TestTheme } from './render';

/** A client config with the spec's defaults and these auth settings. */
export function configWithAuth(auth: Partial<AuthConfig> = {}): ClientConfig {
  return clientConfigSchema.parse({ auth });
}

/** Renders routes under a memory router, with the theme and a client config. */
export function renderRoutes(
  routes: RouteObject[],
  path: string,
  config: ClientConfig = configWithAuth(),
) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const view = render(
    <TestTheme>
      <ClientConfigContext.Provider value={config}>
        <RouterProvider router={router} />
      </ClientConfigContext.Provider>
    </TestTheme>,
  );
  return { router, ...view };
}

/** One element at a path. */
export function renderAt(element: ReactElement, path: string, config?: ClientConfig) {
  return renderRoutes([{ path: '*', element }], path, config);
}

export const jsonResponse = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

export const errorResponse = (status: number, message: string, code = 'access_denied') =>
  jsonResponse({ error: { message, code }, message }, status);

/** A signed-in browser's bearer token (`bearer-tok`), fresh for ten minutes, as sign-in stores it. */
export function storeTestBearer(): void {
  storeToken({
    accessToken: 'bearer-tok',
    expiresIn: 600,
    created: Date.now(),
    sessionExpires: '',
    sessionInactiveTimeout: 0,
  });
}
