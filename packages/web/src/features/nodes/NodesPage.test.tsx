import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { resourceCart } from '../accessRequests/resourceCart';
import { manyNodes, nodeFixtures, nodePage } from './fixtures';
import { NodesPage } from './NodesPage';

afterEach(() => vi.unstubAllGlobals());

const all = [...manyNodes(40)];

/** A server paging 15 at a time with keys `k15`, `k30`…, filtering by a `search` prefix. */
function fakeServer() {
  const calls: URLSearchParams[] = [];
  const stub = vi.fn(async (url: string) => {
    const [path, query = ''] = url.split('?');
    if (path !== '/v1/webapi/sites/localhost/nodes') return errorResponse(404, 'not found');
    const params = new URLSearchParams(query);
    calls.push(params);
    const search = params.get('search') ?? '';
    const matching = all.filter((n) => n.hostname.includes(search));
    if (params.get('sort') === 'hostname:desc') matching.reverse();
    const start = Number((params.get('startKey') ?? 'k0').slice(1));
    const limit = Number(params.get('limit'));
    const items = matching.slice(start, start + limit);
    const next = start + limit < matching.length ? `k${start + limit}` : '';
    return jsonResponse(nodePage(items, next, matching.length));
  });
  vi.stubGlobal('fetch', stub);
  return calls;
}

const firstHostnames = () =>
  screen
    .getAllByRole('row')
    .slice(1, 3)
    .map((r) => r.querySelector('p')?.textContent);

describe('NodesPage', () => {
  it('pages 15 at a time with a stack of start keys, Prev included', async () => {
    const calls = fakeServer();
    renderPage(<NodesPage />);
    expect(await screen.findByText('1–15 of 40')).toBeTruthy();
    expect(calls[0]?.toString()).toBe('limit=15');
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('16–30 of 40')).toBeTruthy();
    expect(calls.at(-1)?.get('startKey')).toBe('k15');
    expect(firstHostnames()).toEqual(['host-16', 'host-17']);
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('31–40 of 40')).toBeTruthy();
    expect(calls.at(-1)?.get('startKey')).toBe('k30');
    expect(screen.getByRole('button', { name: 'Next page' })).toHaveProperty('disabled', true);
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('16–30 of 40')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('1–15 of 40')).toBeTruthy();
    expect(firstHostnames()).toEqual(['host-01', 'host-02']);
  });

  it('a search (debounced) or a sort goes back to page 1', async () => {
    const calls = fakeServer();
    const { router } = renderPage(<NodesPage />);
    const user = userEvent.setup();
    await screen.findByText('1–15 of 40');
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('16–30 of 40');

    await user.type(screen.getByRole('searchbox', { name: 'Search servers' }), 'host-1');
    // One request after typing pauses, not one per key.
    await waitFor(() => expect(calls.at(-1)?.get('search')).toBe('host-1'));
    expect(calls.filter((c) => c.has('search'))).toHaveLength(1);
    expect(calls.at(-1)?.has('startKey')).toBe(false);
    expect(await screen.findByText('1–10 of 10')).toBeTruthy();
    expect(router.state.location.search).toBe('?search=host-1');

    // Hostname ascending is the default order, marked as such: one click turns it around.
    await user.click(screen.getByRole('button', { name: /Hostname/ }));
    await waitFor(() => expect(calls.at(-1)?.get('sort')).toBe('hostname:desc'));
    expect(await screen.findByText('1–10 of 10')).toBeTruthy();
    expect(firstHostnames()).toEqual(['host-19', 'host-18']);
  });

  it('a label chip filters on the server and its filter chip removes it', async () => {
    const stub = vi.fn(async () => jsonResponse(nodePage(nodeFixtures)));
    vi.stubGlobal('fetch', stub);
    renderPage(<NodesPage />);
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
    renderPage(<NodesPage />);
    expect(await screen.findByRole('alert')).toBeTruthy();
    expect(screen.getByText('access denied')).toBeTruthy();
  });
});

describe('NodesPage and access requests', () => {
  afterEach(() => resourceCart().clear());

  const requester = (allowedSearchAsRoles: string[] = []) =>
    userContextFixture(aclWith({ nodes: ['list', 'read'], accessRequests: ['list', 'create'] }), {
      allowedSearchAsRoles,
    });

  it('puts servers in the request cart and shows its count, linking to the new request', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse(nodePage(nodeFixtures))),
    );
    renderPage(<NodesPage />, { context: requester() });
    const user = userEvent.setup();
    await user.click(await screen.findByRole('button', { name: 'Add db-1 to request' }));
    expect(resourceCart().items()).toEqual([
      { kind: 'node', clusterName: 'root', name: nodeFixtures[0]!.id, title: 'db-1' },
    ]);
    const cart = screen.getByRole('link', { name: 'Request access (1)' });
    expect(cart.getAttribute('href')).toBe('/web/requests/new');
    await user.click(screen.getByRole('button', { name: 'Remove db-1 from request' }));
    expect(screen.getByRole('link', { name: 'Request access (0)' })).toBeTruthy();
    // No search-as roles: no switch.
    expect(screen.queryByRole('switch')).toBeNull();
  });

  it('lists with searchAsRoles=yes while the switch is on', async () => {
    const stub = vi.fn(async (_url: string) => jsonResponse(nodePage(nodeFixtures)));
    vi.stubGlobal('fetch', stub);
    renderPage(<NodesPage />, { context: requester(['db-read']) });
    const user = userEvent.setup();
    await screen.findByText('db-1');
    expect(stub.mock.calls.at(-1)?.[0]).not.toContain('searchAsRoles');
    await user.click(screen.getByRole('switch', { name: 'Search resources as requestable roles' }));
    await waitFor(() => expect(stub.mock.calls.at(-1)?.[0]).toContain('searchAsRoles=yes'));
  });

  it('offers no request actions without accessRequests create', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse(nodePage(nodeFixtures))),
    );
    renderPage(<NodesPage />, { context: userContextFixture(aclWith({ nodes: ['list'] })) });
    await screen.findByText('db-1');
    expect(screen.queryByRole('button', { name: /to request/ })).toBeNull();
    expect(screen.queryByRole('link', { name: /Request access/ })).toBeNull();
  });
});
