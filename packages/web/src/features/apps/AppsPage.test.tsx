import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { resourceCart } from '../accessRequests/resourceCart';
import { AppsPage } from './AppsPage';
import { appFixtures, appPage, manyApps } from './fixtures';

afterEach(() => vi.unstubAllGlobals());

const all = manyApps(40);

/** A server paging 15 at a time with keys `k15`, `k30`…, filtering by a `search` substring. */
function fakeServer(expectedPath = '/v1/webapi/sites/localhost/apps') {
  const calls: URLSearchParams[] = [];
  const stub = vi.fn(async (url: string) => {
    const [path, query = ''] = url.split('?');
    if (path !== expectedPath) return errorResponse(404, 'not found');
    const params = new URLSearchParams(query);
    calls.push(params);
    const search = params.get('search') ?? '';
    const matching = all.filter((a) => a.name.includes(search));
    if (params.get('sort') === 'name:desc') matching.reverse();
    const start = Number((params.get('startKey') ?? 'k0').slice(1));
    const limit = Number(params.get('limit'));
    const items = matching.slice(start, start + limit);
    const next = start + limit < matching.length ? `k${start + limit}` : '';
    return jsonResponse(appPage(items, next, matching.length));
  });
  vi.stubGlobal('fetch', stub);
  return calls;
}

const firstNames = () =>
  screen
    .getAllByRole('row')
    .slice(1, 3)
    .map((r) => r.querySelector('p')?.textContent);

describe('AppsPage', () => {
  it('pages 15 at a time with a stack of start keys, Prev included', async () => {
    const calls = fakeServer();
    renderPage(<AppsPage />);
    expect(await screen.findByText('1–15 of 40')).toBeTruthy();
    expect(calls[0]?.toString()).toBe('limit=15');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('16–30 of 40')).toBeTruthy();
    expect(calls.at(-1)?.get('startKey')).toBe('k15');
    expect(firstNames()).toEqual(['app-16', 'app-17']);
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('31–40 of 40')).toBeTruthy();
    expect(calls.at(-1)?.get('startKey')).toBe('k30');
    expect(screen.getByRole('button', { name: 'Next page' })).toHaveProperty('disabled', true);
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('16–30 of 40')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('1–15 of 40')).toBeTruthy();
    expect(firstNames()).toEqual(['app-01', 'app-02']);
  });

  it('a search (debounced) or a sort goes back to page 1, kept in the URL', async () => {
    const calls = fakeServer();
    const { router } = renderPage(<AppsPage />);
    const user = userEvent.setup();
    await screen.findByText('1–15 of 40');
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('16–30 of 40');

    await user.type(screen.getByRole('searchbox', { name: 'Search applications' }), 'app-1');
    await waitFor(() => expect(calls.at(-1)?.get('search')).toBe('app-1'));
    expect(calls.filter((c) => c.has('search'))).toHaveLength(1);
    expect(calls.at(-1)?.has('startKey')).toBe(false);
    expect(await screen.findByText('1–10 of 10')).toBeTruthy();
    expect(router.state.location.search).toBe('?search=app-1');

    await user.click(screen.getByRole('button', { name: /Name/ }));
    await waitFor(() => expect(calls.at(-1)?.get('sort')).toBe('name:desc'));
    expect(await screen.findByText('1–10 of 10')).toBeTruthy();
    expect(firstNames()).toEqual(['app-19', 'app-18']);

    await user.click(screen.getByRole('button', { name: /Address/ }));
    await waitFor(() => expect(calls.at(-1)?.get('sort')).toBe('publicAddr:asc'));
    expect(router.state.location.search).toBe('?search=app-1&sort=publicAddr%3Aasc');
  });

  it('reads the cluster from the route', async () => {
    const calls = fakeServer('/v1/webapi/sites/leaf-a/apps');
    renderPage(<AppsPage />, {
      path: '/web/cluster/:clusterId/apps',
      url: '/web/cluster/leaf-a/apps?sort=description:desc',
    });
    expect(await screen.findByText('1–15 of 40')).toBeTruthy();
    expect(calls[0]?.get('sort')).toBe('description:desc');
  });

  it('a label chip filters on the server and its filter chip removes it', async () => {
    const stub = vi.fn(async () => jsonResponse(appPage(appFixtures)));
    vi.stubGlobal('fetch', stub);
    renderPage(<AppsPage />);
    const user = userEvent.setup();
    await user.click(await screen.findByText('env: staging'));
    const queryOf = (call: unknown[] | undefined) =>
      new URLSearchParams(String(call?.[0]).split('?')[1]).get('query');
    await waitFor(() => expect(queryOf(stub.mock.calls.at(-1))).toBe('labels["env"] == "staging"'));
    const filters = screen.getByRole('list', { name: 'Label filters' });
    await user.click(within(filters).getByRole('button', { name: 'Remove filter env: staging' }));
    await waitFor(() => expect(queryOf(stub.mock.calls.at(-1))).toBeNull());
  });

  it('shows the server’s error with a retry', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => errorResponse(403, 'access denied')),
    );
    renderPage(<AppsPage />);
    expect(await screen.findByRole('alert')).toBeTruthy();
    expect(screen.getByText('access denied')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
  });
});

describe('AppsPage and access requests', () => {
  afterEach(() => resourceCart().clear());

  const requester = (allowedSearchAsRoles: string[] = []) =>
    userContextFixture(
      aclWith({ appServers: ['list', 'read'], accessRequests: ['list', 'create'] }),
      { allowedSearchAsRoles },
    );

  it('puts apps in the request cart beside Launch, and shows its count', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse(appPage(appFixtures))),
    );
    renderPage(<AppsPage />, { context: requester() });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Add grafana to request' }));
    expect(resourceCart().items()).toEqual([
      { kind: 'app', clusterName: 'root', name: 'grafana', title: 'grafana' },
    ]);
    expect(screen.getByRole('link', { name: 'Request access (1)' }).getAttribute('href')).toBe(
      '/web/requests/new',
    );
    // The app's own action stays.
    expect(screen.getByRole('link', { name: 'Launch grafana' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Remove grafana from request' }));
    expect(resourceCart().items()).toEqual([]);
    expect(screen.queryByRole('switch')).toBeNull();
  });

  it('lists with searchAsRoles=yes while the switch is on', async () => {
    const stub = vi.fn(async (_url: string) => jsonResponse(appPage(appFixtures)));
    vi.stubGlobal('fetch', stub);
    renderPage(<AppsPage />, { context: requester(['ops-access']) });
    const user = userEvent.setup();
    await screen.findByText('Dashboards');
    expect(stub.mock.calls.at(-1)?.[0]).not.toContain('searchAsRoles');
    await user.click(screen.getByRole('switch', { name: 'Search resources as requestable roles' }));
    await waitFor(() => expect(stub.mock.calls.at(-1)?.[0]).toContain('searchAsRoles=yes'));
  });

  it('offers no request actions without accessRequests create', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse(appPage(appFixtures))),
    );
    renderPage(<AppsPage />);
    await screen.findByText('Dashboards');
    expect(screen.queryByRole('button', { name: /to request/ })).toBeNull();
    expect(screen.queryByRole('link', { name: /Request access/ })).toBeNull();
  });
});
