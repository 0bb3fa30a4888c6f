import { labelClause, type UnifiedResource, type UserContext } from '@postern/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { errorResponse, jsonResponse } from '../../test/authConfig';
import { renderPage } from '../../test/renderPage';
import { aclWith, userContextFixture } from '../../test/userContexts';
import { nodeFixtures } from '../nodes/fixtures';
import { manyServerResources, resourceFixtures, resourcePage } from './fixtures';
import { ResourcesPage } from './ResourcesPage';

// The unified Resources page on a stubbed server: one list of every kind, each row its own Connect.

afterEach(() => vi.unstubAllGlobals());

const everyKind = aclWith({
  nodes: ['list', 'read'],
  appServers: ['list', 'read'],
  dbServers: ['list', 'read'],
  kubeServers: ['list', 'read'],
  desktops: ['list', 'read'],
});

/**
 * A server answering `GET sites/{cluster}/resources` from `items`: `kinds` and a `search` prefix
 * narrow, pages are cut at `limit` with keys `k15`, `k30`…; every call's query is recorded.
 */
function fakeServer(items: UnifiedResource[] = resourceFixtures, cluster = 'localhost') {
  const calls: URLSearchParams[] = [];
  const stub = vi.fn(async (url: string) => {
    const [path, query = ''] = url.split('?');
    if (path !== `/v1/webapi/sites/${cluster}/resources`) {
      return errorResponse(404, 'not found', 'not_found');
    }
    const params = new URLSearchParams(query);
    calls.push(params);
    const kinds = params.get('kinds')?.split(',');
    const matching = items.filter((item) => !kinds || kinds.includes(item.kind));
    const start = Number((params.get('startKey') ?? 'k0').slice(1));
    const limit = Number(params.get('limit'));
    const page = matching.slice(start, start + limit);
    const next = start + limit < matching.length ? `k${start + limit}` : '';
    return jsonResponse(resourcePage(page, next, matching.length));
  });
  vi.stubGlobal('fetch', stub);
  return { calls, last: () => calls.at(-1) };
}

function setup(
  options: {
    query?: string;
    context?: UserContext;
    cluster?: string;
    items?: UnifiedResource[];
  } = {},
) {
  const { query = '', context = userContextFixture(everyKind), cluster = 'localhost' } = options;
  const server = fakeServer(options.items, cluster);
  const { router } = renderPage(<ResourcesPage />, {
    path: '/web/cluster/:clusterId/resources',
    url: `/web/cluster/${cluster}/resources${query}`,
    context,
    routes: [{ path: '/web/discover', element: <p>Enroll page</p> }],
  });
  return { ...server, router, user: userEvent.setup() };
}

const rowOf = (name: string) => screen.getByText(name, { selector: 'p' }).closest('tr')!;
const cellsOf = (name: string) =>
  within(rowOf(name))
    .getAllByRole('cell')
    .map((cell) => cell.textContent);

describe('ResourcesPage', () => {
  it('asks for the unified list with the page size and the URL’s search, query, sort and kinds', async () => {
    const query = labelClause('env', 'prod');
    const { calls } = setup({
      query: `?search=prod&query=${encodeURIComponent(query)}&sort=kind:desc&kinds=db,node`,
    });
    expect(await screen.findByRole('heading', { name: 'Resources', level: 2 })).toBeTruthy();
    await waitFor(() => expect(calls).toHaveLength(1));
    // The kinds in the contract's order, whatever the URL's.
    expect(Object.fromEntries(calls[0]!)).toEqual({
      limit: '15',
      search: 'prod',
      query,
      sort: 'kind:desc',
      kinds: 'node,db',
    });
  });

  it('leaves out kinds the contract does not know, and asks for every kind without any', async () => {
    const { calls } = setup({ query: '?kinds=bogus,app' });
    await screen.findByText('grafana');
    expect(Object.fromEntries(calls[0]!)).toEqual({ limit: '15', kinds: 'app' });
  });

  it('shows a row of each kind: its kind, name, detail, labels and its own action', async () => {
    setup();
    await screen.findByText('db-1');
    expect(
      screen.getAllByRole('columnheader').map((h) => h.textContent?.replace(/[▲▼ ]+$/, '')),
    ).toEqual(['Kind', 'Name', 'Details', 'Labels', 'Actions']);
    expect(cellsOf('db-1')).toEqual([
      'Server',
      'db-1',
      '10.0.0.12:3022',
      'env: prodrole: database',
      // A menu of logins, as on the Servers page.
      'Connect ▾',
    ]);
    expect(cellsOf('grafana')).toEqual([
      'Application',
      'grafana',
      'https://grafana.example.com',
      'env: prodteam: ops',
      'Launch',
    ]);
    expect(cellsOf('orders')).toEqual(['Database', 'orders', 'PostgreSQL', 'env: prod', 'Connect']);
    expect(cellsOf('prod')).toEqual([
      'Kubernetes',
      'prod',
      'Production',
      'env: prodregion: eu',
      'Connect',
    ]);
    expect(cellsOf('build-box')).toEqual([
      'Desktop',
      'build-box',
      '10.0.0.5',
      'env: devteam: ci',
      'Connect ▾',
    ]);
    // Each row's action is its kind's own, named after the resource.
    for (const [row, role, name] of [
      ['db-1', 'button', 'Connect to db-1'],
      ['grafana', 'link', 'Launch grafana'],
      ['orders', 'button', 'Connect to orders'],
      ['prod', 'button', 'Connect to prod'],
      ['build-box', 'button', 'Connect to build-box'],
    ] as const) {
      expect(within(rowOf(row)).getByRole(role, { name })).toBeTruthy();
    }
    expect(screen.getByText('1–5 of 5')).toBeTruthy();
  });

  it('is in name order unless asked otherwise; the Kind header sorts by kind', async () => {
    const { last, router, user } = setup();
    await screen.findByText('db-1');
    const nameHeader = screen.getByRole('columnheader', { name: /Name/ });
    expect(nameHeader.getAttribute('aria-sort')).toBe('ascending');
    expect(last()?.has('sort')).toBe(false);
    await user.click(screen.getByRole('button', { name: /Kind/ }));
    await waitFor(() => expect(last()?.get('sort')).toBe('kind:asc'));
    expect(router.state.location.search).toBe('?sort=kind%3Aasc');
    expect(screen.getByRole('columnheader', { name: /Kind/ }).getAttribute('aria-sort')).toBe(
      'ascending',
    );
    expect(screen.queryByRole('button', { name: /Details/ })).toBeNull();
  });

  it('a server row connects with its logins in a new tab, as on the Servers page', async () => {
    const { user } = setup();
    await user.click(await screen.findByRole('button', { name: 'Connect to db-1' }));
    const items = await screen.findAllByRole('menuitem');
    expect(
      items.map((i) => [i.textContent, i.getAttribute('href'), i.getAttribute('target')]),
    ).toEqual([
      ['root', `/web/cluster/localhost/console/node/${nodeFixtures[0]!.id}/root`, '_blank'],
      ['ubuntu', `/web/cluster/localhost/console/node/${nodeFixtures[0]!.id}/ubuntu`, '_blank'],
    ]);
  });

  it('an app row launches, a database, cluster and desktop row each connects its own way', async () => {
    const { user } = setup();
    const launch = await screen.findByRole('link', { name: 'Launch grafana' });
    expect(launch.getAttribute('href')).toBe(
      '/web/launch/grafana.example.com/root/grafana.example.com',
    );
    expect(launch.getAttribute('target')).toBe('_blank');

    await user.click(within(rowOf('orders')).getByRole('button', { name: 'Connect to orders' }));
    const db = await screen.findByRole('dialog', { name: 'Connect to orders' });
    expect(within(db).getByLabelText('Connect command').textContent).toBe(
      'postern db connect orders --db-user reader --db-name orders',
    );
    await user.keyboard('{Escape}');

    await user.click(within(rowOf('prod')).getByRole('button', { name: 'Connect to prod' }));
    const kube = await screen.findByRole('dialog', { name: 'Connect to prod' });
    expect(within(kube).getByLabelText('Login command').textContent).toBe(
      'postern kube login prod',
    );
    await user.keyboard('{Escape}');

    await user.click(
      within(rowOf('build-box')).getByRole('button', { name: 'Connect to build-box' }),
    );
    const logins = await screen.findAllByRole('menuitem');
    expect(logins.map((i) => [i.textContent, i.getAttribute('href')])).toEqual([
      ['alice', '/web/cluster/localhost/desktops/build-box/alice'],
      ['ops', '/web/cluster/localhost/desktops/build-box/ops'],
    ]);
  });

  it('on a trusted leaf, the commands name the leaf as their kinds’ pages do', async () => {
    const { user } = setup({ cluster: 'leaf-a' });
    await user.click(await screen.findByRole('button', { name: 'Connect to orders' }));
    const db = await screen.findByRole('dialog', { name: 'Connect to orders' });
    expect(within(db).getByLabelText('Connect command').textContent).toBe(
      'postern db connect orders --cluster leaf-a --db-user reader --db-name orders',
    );
  });

  it('a kind filter asks again with kinds=, kept in the URL; All asks for every kind', async () => {
    const { last, router, user } = setup();
    await screen.findByText('db-1');
    const kinds = screen.getByRole('group', { name: 'Kinds' });
    expect(
      within(kinds)
        .getAllByRole('checkbox')
        .map((c) => c.closest('div')?.textContent),
    ).toEqual(['All', 'Servers', 'Applications', 'Databases', 'Kubernetes', 'Desktops']);
    expect(within(kinds).getByRole('checkbox', { name: 'All' })).toHaveProperty('checked', true);

    await user.click(within(kinds).getByRole('checkbox', { name: 'Databases' }));
    await waitFor(() => expect(last()?.get('kinds')).toBe('db'));
    expect(await screen.findByText('1–1 of 1')).toBeTruthy();
    expect(router.state.location.search).toBe('?kinds=db');
    expect(within(kinds).getByRole('checkbox', { name: 'All' })).toHaveProperty('checked', false);

    await user.click(within(kinds).getByRole('checkbox', { name: 'Applications' }));
    await waitFor(() => expect(last()?.get('kinds')).toBe('app,db'));
    expect(await screen.findByText('1–2 of 2')).toBeTruthy();

    await user.click(within(kinds).getByRole('checkbox', { name: 'All' }));
    await waitFor(() => expect(last()?.has('kinds')).toBe(false));
    expect(await screen.findByText('1–5 of 5')).toBeTruthy();
    expect(router.state.location.search).toBe('');
  });

  it('offers only the kinds the user may list', async () => {
    setup({ context: userContextFixture(aclWith({ nodes: ['list'], dbServers: ['list'] })) });
    await screen.findByText('db-1');
    const kinds = screen.getByRole('group', { name: 'Kinds' });
    expect(
      within(kinds)
        .getAllByRole('checkbox')
        .map((c) => c.closest('div')?.textContent),
    ).toEqual(['All', 'Servers', 'Databases']);
  });

  it('has no kind filter for a user who may list one kind only', async () => {
    setup({ context: userContextFixture(aclWith({ appServers: ['list'] })) });
    await screen.findByText('grafana');
    expect(screen.queryByRole('group', { name: 'Kinds' })).toBeNull();
  });

  it('a label chip adds its clause to the query, and a search keeps the kinds', async () => {
    const { last, router, user } = setup({ query: '?kinds=db,app' });
    await user.click(within(await waitFor(() => rowOf('orders'))).getByText('env: prod'));
    await waitFor(() => expect(last()?.get('query')).toBe(labelClause('env', 'prod')));
    expect(last()?.get('kinds')).toBe('app,db');
    const filters = screen.getByRole('list', { name: 'Label filters' });
    expect(within(filters).getByText('env: prod')).toBeTruthy();
    expect(new URLSearchParams(router.state.location.search).get('query')).toBe(
      labelClause('env', 'prod'),
    );
    await user.type(screen.getByRole('searchbox', { name: 'Search resources' }), 'ord{Enter}');
    await waitFor(() => expect(last()?.get('search')).toBe('ord'));
    expect(last()?.get('kinds')).toBe('app,db');
    expect(last()?.get('query')).toBe(labelClause('env', 'prod'));
  });

  it('pages forward with the start key the server returned; a new kind goes back to page 1', async () => {
    const items = [...manyServerResources(20), ...resourceFixtures.slice(1)];
    const { last, user } = setup({ items });
    expect(await screen.findByText('1–15 of 24')).toBeTruthy();
    expect(last()?.has('startKey')).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('16–24 of 24')).toBeTruthy();
    expect(last()?.get('startKey')).toBe('k15');
    expect(screen.getByText('grafana')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('1–15 of 24')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('16–24 of 24');
    await user.click(screen.getByRole('checkbox', { name: 'Servers' }));
    await waitFor(() => expect(last()?.get('kinds')).toBe('node'));
    expect(last()?.has('startKey')).toBe(false);
    expect(await screen.findByText('1–15 of 20')).toBeTruthy();
  });

  it('with nothing reachable, says so and points to Enroll New Resource when the user may', async () => {
    const acl = aclWith({ nodes: ['list'], tokens: ['create'] });
    const { user } = setup({ items: [], context: userContextFixture(acl) });
    expect(await screen.findByRole('heading', { name: 'No resources yet' })).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
    await user.click(screen.getByRole('link', { name: 'Enroll New Resource' }));
    expect(await screen.findByText('Enroll page')).toBeTruthy();
  });

  it('with nothing reachable and no right to enroll, sends the user to an admin', async () => {
    setup({ items: [] });
    expect(await screen.findByRole('heading', { name: 'No resources yet' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Enroll New Resource' })).toBeNull();
    expect(screen.getByText(/Ask an admin/)).toBeTruthy();
  });

  it('a kind filter that matches nothing says no match, not "none yet"', async () => {
    const { user } = setup();
    await screen.findByText('db-1');
    await user.click(screen.getByRole('checkbox', { name: 'Servers' }));
    await screen.findByText('1–1 of 1');
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => jsonResponse(resourcePage([]))),
    );
    await user.click(screen.getByRole('checkbox', { name: 'Desktops' }));
    expect(await screen.findByText('No resources match your search.')).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'No resources yet' })).toBeNull();
  });

  it('shows the server’s error with a Retry', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => errorResponse(500, 'the resources are unavailable', 'internal')),
    );
    renderPage(<ResourcesPage />, {
      path: '/web/cluster/:clusterId/resources',
      url: '/web/cluster/localhost/resources',
      context: userContextFixture(everyKind),
    });
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('the resources are unavailable')).toBeTruthy();
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy();
  });
});
