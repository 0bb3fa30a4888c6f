import { Button, Group, Text } from '@mantine/core';
import { labelClause, parseLabelQuery } from '@postern/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState, type ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../test/render';
import type { Label } from '../LabelChips';
import type { ListFilters, ListPageRequest } from './listFilters';
import { labelsColumn, ResourceList, type ListColumn, type ResourcePage } from './ResourceList';
import { useResourceList, useUrlListFilters } from './useResourceList';

// A made-up second kind, to show the list is not the Servers list: web apps with a Launch button.
interface App {
  name: string;
  description: string;
  labels: Label[];
}
type AppSortField = 'name' | 'description';
const appSortFields: readonly AppSortField[] = ['name', 'description'];
type AppRequest = ListPageRequest<ListFilters<AppSortField>>;

const app = (name: string, description: string, env: string): App => ({
  name,
  description,
  labels: [{ name: 'env', value: env }],
});
const someApps: App[] = [
  app('grafana', 'Dashboards', 'prod'),
  app('jenkins', 'Builds', 'staging'),
  app('kibana', 'Logs', 'prod'),
  app('argo', 'Deploys', 'prod'),
  app('vault', 'Secrets', 'staging'),
  app('wiki', 'Notes', 'prod'),
  app('metabase', 'Reports', 'staging'),
];

/**
 * A fake apps API in memory (the server's rules in small): search by substring, a label query of
 * `&&`-joined clauses, sort by a field, and keyset pages whose start key names the next page's
 * first app. It records every request and can be told to fail.
 */
function fakeAppsServer(apps: App[] = someApps) {
  const requests: AppRequest[] = [];
  const state = { failWith: '' };
  const fetchPage = vi.fn(async (request: AppRequest): Promise<ResourcePage<App>> => {
    requests.push(request);
    if (state.failWith) throw new Error(state.failWith);
    const wanted = parseLabelQuery(request.query);
    if (wanted instanceof Error) throw wanted;
    // An extra filter of this kind's own: `env`, the apps of one environment.
    const env = request.extra?.env;
    if (env) wanted.push({ name: 'env', value: env });
    const field = request.sort?.field ?? 'name';
    const sign = request.sort?.dir === 'desc' ? -1 : 1;
    const matching = apps
      .filter((a) => `${a.name} ${a.description}`.includes(request.search))
      .filter((a) =>
        wanted.every((w) => a.labels.some((l) => l.name === w.name && l.value === w.value)),
      )
      .sort((a, b) => sign * a[field].localeCompare(b[field]));
    const start = request.startKey
      ? matching.findIndex((a) => `after:${a.name}` === request.startKey) + 1
      : 0;
    const items = matching.slice(start, start + (request.limit ?? 3));
    const last = items.at(-1);
    const more = start + items.length < matching.length;
    return {
      items,
      startKey: more && last ? `after:${last.name}` : '',
      totalCount: matching.length,
    };
  });
  return { fetchPage, requests, state, last: () => requests.at(-1) };
}

const appColumns: ListColumn<App, AppSortField>[] = [
  { id: 'name', header: 'Name', sortKey: 'name', cell: (a) => <Text fw={600}>{a.name}</Text> },
  // A column's id need not be the server's field: the list maps one to the other.
  { id: 'about', header: 'Description', sortKey: 'description', cell: (a) => a.description },
  labelsColumn((a: App) => a.labels),
];

interface ListOptions {
  server: ReturnType<typeof fakeAppsServer>;
  onLaunch: (app: App) => void;
  filters: ListFilters<AppSortField>;
  onFiltersChange: (filters: ListFilters<AppSortField>) => void;
  filterControls?: ReactNode;
}

function AppsList({ server, onLaunch, filters, onFiltersChange, filterControls }: ListOptions) {
  const { listProps } = useResourceList(
    {
      queryKey: (request) => ['fake-apps', request],
      fetchPage: (request) => server.fetchPage(request),
      pageSize: 3,
    },
    filters,
  );
  return (
    <ResourceList
      {...listProps}
      filters={filters}
      onFiltersChange={onFiltersChange}
      title="Applications"
      itemsLabel="apps"
      columns={appColumns}
      rowKey={(a) => a.name}
      rowAction={(a) => (
        <Button size="xs" onClick={() => onLaunch(a)} aria-label={`Launch ${a.name}`}>
          Launch
        </Button>
      )}
      defaultSort={{ field: 'name', dir: 'asc' }}
      search={{ label: 'Search apps', placeholder: 'Search by name or description' }}
      noMatchText="No apps match your search."
      filterControls={filterControls}
    />
  );
}

/** The filters held in the list's own state, as the console's tabs keep them. */
function AppsInState(props: Omit<ListOptions, 'filters' | 'onFiltersChange'>) {
  const [filters, setFilters] = useState<ListFilters<AppSortField>>({ search: '', query: '' });
  return <AppsList {...props} filters={filters} onFiltersChange={setFilters} />;
}

/** The filters held in the page's URL, as the Servers page keeps them. */
function AppsInUrl(props: Omit<ListOptions, 'filters' | 'onFiltersChange'>) {
  const [filters, setFilters] = useUrlListFilters(appSortFields);
  return <AppsList {...props} filters={filters} onFiltersChange={setFilters} />;
}

const envParam = ['env'] as const;

/** The filters in the URL with an extra one of the kind's own, `env`, and buttons that set it. */
function AppsByEnvInUrl(props: Omit<ListOptions, 'filters' | 'onFiltersChange'>) {
  const [filters, setFilters] = useUrlListFilters(appSortFields, envParam);
  const envButton = (env: string, label: string) => (
    <Button size="xs" onClick={() => setFilters({ ...filters, extra: { ...filters.extra, env } })}>
      {label}
    </Button>
  );
  return (
    <AppsList
      {...props}
      filters={filters}
      onFiltersChange={setFilters}
      filterControls={
        <Group gap={4}>
          {envButton('prod', 'Only prod')}
          {envButton('', 'Every env')}
        </Group>
      }
    />
  );
}

function renderApps(options: { apps?: App[]; url?: string; extra?: boolean } = {}) {
  const server = fakeAppsServer(options.apps);
  const onLaunch = vi.fn();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const element = options.extra ? (
    <AppsByEnvInUrl server={server} onLaunch={onLaunch} />
  ) : options.url ? (
    <AppsInUrl server={server} onLaunch={onLaunch} />
  ) : (
    <AppsInState server={server} onLaunch={onLaunch} />
  );
  const router = createMemoryRouter([{ path: '/', element }], {
    initialEntries: [options.url ?? '/'],
  });
  renderWithTheme(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { server, onLaunch, router, user: userEvent.setup() };
}

const names = () =>
  screen
    .getAllByRole('row')
    .slice(1)
    .map((r) => r.querySelector('p')?.textContent);

describe('ResourceList for another kind (apps, against a fake fetcher)', () => {
  it('shows the kind’s columns, its labels and its row action', async () => {
    const { onLaunch, user } = renderApps();
    expect(await screen.findByText('1–3 of 7')).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Applications' })).toBeTruthy();
    expect(
      screen.getAllByRole('columnheader').map((h) => h.textContent?.replace(/[▲▼ ]+$/, '')),
    ).toEqual(['Name', 'Description', 'Labels', 'Actions']);
    expect(names()).toEqual(['argo', 'grafana', 'jenkins']);
    const argo = screen.getByText('argo').closest('tr') as HTMLElement;
    expect(within(argo).getByText('Deploys')).toBeTruthy();
    expect(within(argo).getByText('env: prod')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Launch grafana' }));
    expect(onLaunch).toHaveBeenCalledWith(someApps[0]);
  });

  it('pages forward with the start keys the server returned, and back with Prev', async () => {
    const { server, user } = renderApps();
    await screen.findByText('1–3 of 7');
    expect(server.last()).toMatchObject({ startKey: '', limit: 3 });
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('4–6 of 7')).toBeTruthy();
    expect(server.last()?.startKey).toBe('after:jenkins');
    expect(names()).toEqual(['kibana', 'metabase', 'vault']);
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('7–7 of 7')).toBeTruthy();
    expect(server.last()?.startKey).toBe('after:vault');
    expect(screen.getByRole('button', { name: 'Next page' })).toHaveProperty('disabled', true);
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('4–6 of 7')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Previous page' }));
    expect(await screen.findByText('1–3 of 7')).toBeTruthy();
    expect(names()).toEqual(['argo', 'grafana', 'jenkins']);
    expect(screen.getByRole('button', { name: 'Previous page' })).toHaveProperty('disabled', true);
  });

  it('a search goes to the server and back to page 1; no match keeps the search', async () => {
    const { server, user } = renderApps();
    await screen.findByText('1–3 of 7');
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('4–6 of 7');
    await user.type(screen.getByRole('searchbox', { name: 'Search apps' }), 'ana');
    await waitFor(() => expect(server.last()).toMatchObject({ search: 'ana', startKey: '' }));
    expect(await screen.findByText('1–2 of 2')).toBeTruthy();
    expect(names()).toEqual(['grafana', 'kibana']);
    await user.type(screen.getByRole('searchbox', { name: 'Search apps' }), 'zzz{Enter}');
    expect(await screen.findByText('No apps match your search.')).toBeTruthy();
    expect((screen.getByRole('searchbox', { name: 'Search apps' }) as HTMLInputElement).value).toBe(
      'anazzz',
    );
  });

  it('a label chip adds a clause to the label query; its filter chip takes it away', async () => {
    const { server, user } = renderApps();
    await screen.findByText('1–3 of 7');
    const argo = screen.getByText('argo').closest('tr') as HTMLElement;
    await user.click(within(argo).getByText('env: prod'));
    await waitFor(() => expect(server.last()?.query).toBe(labelClause('env', 'prod')));
    expect(await screen.findByText('1–3 of 4')).toBeTruthy();
    const chips = screen.getByRole('list', { name: 'Label filters' });
    expect(
      within(chips)
        .getAllByRole('listitem')
        .map((c) => c.textContent),
    ).toEqual(['env: prod']);
    await user.click(within(chips).getByRole('button', { name: 'Remove filter env: prod' }));
    await waitFor(() => expect(server.last()?.query).toBe(''));
    expect(await screen.findByText('1–3 of 7')).toBeTruthy();
  });

  it('headers sort on the server by the column’s sort key; the default order is marked', async () => {
    const { server, user } = renderApps();
    await screen.findByText('1–3 of 7');
    const nameHeader = screen.getByRole('columnheader', { name: /Name/ });
    expect(nameHeader.getAttribute('aria-sort')).toBe('ascending');
    await user.click(within(nameHeader).getByRole('button'));
    await waitFor(() => expect(server.last()?.sort).toEqual({ field: 'name', dir: 'desc' }));
    await waitFor(() => expect(names()).toEqual(['wiki', 'vault', 'metabase']));
    await user.click(screen.getByRole('button', { name: /Description/ }));
    await waitFor(() => expect(names()).toEqual(['jenkins', 'grafana', 'argo']));
    expect(server.last()?.sort).toEqual({ field: 'description', dir: 'asc' });
    expect(
      screen.getByRole('columnheader', { name: /Description/ }).getAttribute('aria-sort'),
    ).toBe('ascending');
    expect(nameHeader.getAttribute('aria-sort')).toBeNull();
    expect(screen.queryByRole('button', { name: /Labels/ })).toBeNull();
  });

  it('with no apps at all, says so instead of showing an empty table', async () => {
    renderApps({ apps: [] });
    expect(await screen.findByText('No apps yet.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.queryByRole('searchbox')).toBeNull();
  });

  it('shows the fetcher’s error with a Retry that asks again', async () => {
    const server = fakeAppsServer();
    server.state.failWith = 'apps are unavailable';
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const router = createMemoryRouter(
      [{ path: '/', element: <AppsInState server={server} onLaunch={vi.fn()} /> }],
      { initialEntries: ['/'] },
    );
    renderWithTheme(
      <QueryClientProvider client={client}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    );
    const alert = await screen.findByRole('alert');
    expect(within(alert).getByText('apps are unavailable')).toBeTruthy();
    server.state.failWith = '';
    await userEvent.setup().click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('1–3 of 7')).toBeTruthy();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('keeps its filters in the URL when asked to, and reads them back from it', async () => {
    const { server, router, user } = renderApps({ url: '/?query=&sort=description:desc' });
    expect(await screen.findByText('1–3 of 7')).toBeTruthy();
    expect(server.last()?.sort).toEqual({ field: 'description', dir: 'desc' });
    expect(names()).toEqual(['vault', 'metabase', 'wiki']);
    await user.type(screen.getByRole('searchbox', { name: 'Search apps' }), 'a{Enter}');
    await waitFor(() =>
      expect(router.state.location.search).toBe('?search=a&sort=description%3Adesc'),
    );
    expect(server.last()).toMatchObject({ search: 'a', startKey: '' });
    // A list without extra filters has none, whatever else the URL holds.
    expect(server.last()).not.toHaveProperty('extra');
  });

  it('keeps a kind’s extra filter in the URL beside the others, sends it, and restarts at page 1', async () => {
    const { server, router, user } = renderApps({ url: '/?sort=name:desc&other=1', extra: true });
    expect(await screen.findByText('1–3 of 7')).toBeTruthy();
    expect(server.last()).toMatchObject({ extra: { env: '' }, startKey: '' });
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('4–6 of 7')).toBeTruthy();

    await user.click(screen.getByRole('button', { name: 'Only prod' }));
    await waitFor(() =>
      expect(server.last()).toMatchObject({ extra: { env: 'prod' }, startKey: '' }),
    );
    expect(await screen.findByText('1–3 of 4')).toBeTruthy();
    expect(router.state.location.search).toBe('?sort=name%3Adesc&env=prod');

    // A search keeps it.
    await user.type(screen.getByRole('searchbox', { name: 'Search apps' }), 'a{Enter}');
    await waitFor(() =>
      expect(server.last()).toMatchObject({ search: 'a', extra: { env: 'prod' } }),
    );
    expect(router.state.location.search).toBe('?search=a&sort=name%3Adesc&env=prod');

    await user.click(screen.getByRole('button', { name: 'Every env' }));
    await waitFor(() => expect(server.last()?.extra).toEqual({ env: '' }));
    expect(router.state.location.search).toBe('?search=a&sort=name%3Adesc');
  });

  it('an extra filter that matches nothing is "no match", not the empty state', async () => {
    const { user } = renderApps({ apps: [app('jenkins', 'Builds', 'staging')], extra: true });
    expect(await screen.findByText('1–1 of 1')).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Only prod' }));
    expect(await screen.findByText('No apps match your search.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Every env' })).toBeTruthy();
  });
});
