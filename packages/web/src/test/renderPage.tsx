import type { ClientConfig, UserContext } from '@postern/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { ClientConfigContext } from '../app/clientConfig';
import { deriveFeatureFlags } from '../app/featureFlags';
import { FeatureFlagsContext } from '../app/featureFlagsContext';
import { UserContextContext } from '../app/userContext';
import { NotificationsProvider } from '../components/Notifications';
import { configWithAuth } from './authConfig';
import { TestTheme } from './render';
import { userContextFixture } from './userContexts';

interface Options {
  /** The route pattern the page is mounted at. */
  path?: string;
  /** Where the router starts, when `path` is a pattern with parameters. */
  url?: string;
  /** Other routes beside the page's own (where a page navigates to). */
  routes?: RouteObject[];
  context?: UserContext;
  config?: ClientConfig;
}

/**
 * A private page as the shell renders it: theme, client config, query cache, notifications, the
 * user context and its feature flags, under a memory router at `path`.
 */
export function renderPage(page: ReactElement, options: Options = {}) {
  const {
    path = '/',
    url = path,
    routes = [],
    context = userContextFixture(),
    config = configWithAuth(),
  } = options;
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const flags = deriveFeatureFlags(context.userAcl, config);
  const router = createMemoryRouter([{ path, element: page }, ...routes], {
    initialEntries: [url],
  });
  const view = render(
    <TestTheme>
      <ClientConfigContext.Provider value={config}>
        <QueryClientProvider client={client}>
          <NotificationsProvider>
            <UserContextContext.Provider value={context}>
              <FeatureFlagsContext.Provider value={flags}>
                <RouterProvider router={router} />
              </FeatureFlagsContext.Provider>
            </UserContextContext.Provider>
          </NotificationsProvider>
        </QueryClientProvider>
      </ClientConfigContext.Provider>
    </TestTheme>,
  );
  return { router, client, ...view };
}
