import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { errorResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { DiscoverPage } from './DiscoverPage';

// Enroll New Resource's page, on a fetch stub the test answers: what its tests share.

export const token = '0123456789abcdef0123456789abcdef';

/** What `POST /v1/webapi/token` answers, expiring at `expiry` (30 minutes from now). */
export const issuedToken = (expiry = new Date(Date.now() + 30 * 60_000)) => ({
  id: token,
  expiry: expiry.toISOString(),
  roles: ['App'],
  suggestedLabels: [{ name: 'teleport.internal/resource-id', value: 'rid-1' }],
  internalResourceId: 'rid-1',
});

/** The page under `acl`; `respond` answers each call (undefined: a 404). */
export function renderDiscover(
  respond: (method: string, url: URL, body: unknown) => Response | undefined,
  acl = aclWith({ tokens: ['create'], nodes: ['list', 'read'], appServers: ['list', 'read'] }),
) {
  const fetchStub = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    const body = init.body === undefined ? undefined : JSON.parse(String(init.body));
    return respond(method, new URL(url, 'https://proxy.test'), body) ?? errorResponse(404, 'nope');
  });
  vi.stubGlobal('fetch', fetchStub);
  renderPage(<DiscoverPage />, {
    path: '/web/discover',
    routes: [{ path: '/web/cluster/:clusterId/apps', element: <p>the apps list</p> }],
    context: userContextFixture(acl),
  });
  const calls = (method: string, path: string) =>
    fetchStub.mock.calls
      .filter(([url, init]) => (init?.method ?? 'GET') === method && url.startsWith(path))
      .map(([url, init]) => ({ url: new URL(url, 'https://x'), body: init?.body }));
  return { calls, user: userEvent.setup() };
}

/** Chooses `kind`, fills its name and address, and asks for the command. */
export async function enrollNamed(
  user: ReturnType<typeof userEvent.setup>,
  kind: string,
  name: string,
  uri: string,
) {
  await user.click(await screen.findByRole('button', { name: kind }));
  await user.type(screen.getByRole('textbox', { name: 'Name' }), name);
  await user.type(screen.getByRole('textbox', { name: 'Address' }), uri);
  await user.click(screen.getByRole('button', { name: 'Generate command' }));
}
