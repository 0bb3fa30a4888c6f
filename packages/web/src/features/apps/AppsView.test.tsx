import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { labelClause } from '@postern/contracts';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ListPaging } from '../../components/resourceList/useResourceList';
import { renderWithTheme } from '../../test/render';
import { AppsView } from './AppsView';
import { appFixtures, manyApps } from './fixtures';
import { makeApp, noFilters, type AppFilters } from './makeApp';

interface Options {
  apps?: typeof appFixtures;
  startKey?: string;
  totalCount?: number;
  filters?: AppFilters;
  paging?: Partial<ListPaging>;
  leaf?: string;
}

function renderView(options: Options = {}) {
  const apps = (options.apps ?? appFixtures).map(makeApp);
  const onFiltersChange = vi.fn();
  const paging: ListPaging = {
    pageIndex: 0,
    canPrev: false,
    onPrev: vi.fn(),
    onNext: vi.fn(),
    ...options.paging,
  };
  renderWithTheme(
    <MemoryRouter>
      <AppsView
        attempt={{
          status: 'success',
          data: {
            apps,
            startKey: options.startKey ?? '',
            totalCount: options.totalCount ?? apps.length,
          },
        }}
        onRetry={vi.fn()}
        filters={options.filters ?? noFilters}
        onFiltersChange={onFiltersChange}
        paging={paging}
        pageSize={15}
        proxyHost="proxy.example.com"
        leaf={options.leaf}
      />
    </MemoryRouter>,
  );
  return { onFiltersChange, paging };
}

const rowOf = (name: string) =>
  screen.getByText(name, { selector: 'p' }).closest('tr') as HTMLElement;

afterEach(() => vi.restoreAllMocks());

describe('AppsView', () => {
  it('shows name, description, address with its scheme and labels', () => {
    renderView();
    expect(
      screen.getAllByRole('columnheader').map((h) => h.textContent?.replace(/[▲▼ ]+$/, '')),
    ).toEqual(['Name', 'Description', 'Address', 'Labels', 'Actions']);
    const grafana = within(rowOf('grafana'));
    expect(grafana.getByText('Dashboards')).toBeTruthy();
    expect(grafana.getByText('https://grafana.example.com')).toBeTruthy();
    expect(grafana.getByText('env: prod')).toBeTruthy();
    expect(grafana.getByText('team: ops')).toBeTruthy();
    const postgres = within(rowOf('postgres'));
    expect(postgres.getByText('tcp://postgres.proxy.example.com')).toBeTruthy();
    const wiki = within(rowOf('wiki'));
    expect(wiki.getByText('https://wiki.internal')).toBeTruthy();
    expect(wiki.getByText('offline')).toBeTruthy();
    expect(grafana.queryByText('offline')).toBeNull();
  });

  it('an HTTP app with fqdn, cluster and public address has a Launch link to a new tab', () => {
    renderView();
    const launch = within(rowOf('grafana')).getByRole('link', { name: 'Launch grafana' });
    expect(launch.textContent).toBe('Launch');
    expect(launch.getAttribute('href')).toBe(
      '/web/launch/grafana.example.com/root/grafana.example.com',
    );
    expect(launch.getAttribute('target')).toBe('_blank');
    expect(launch.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('an HTTP app missing a part of its launch URL has a disabled Launch that says why', () => {
    renderView();
    const row = within(rowOf('wiki'));
    expect(row.queryByRole('link')).toBeNull();
    const launch = row.getByRole('button', { name: 'Launch wiki' });
    expect(launch.getAttribute('aria-disabled')).toBe('true');
    expect(launch.getAttribute('aria-description')).toBe(
      'This application has no address to launch it at.',
    );
  });

  it('a TCP app has no Launch link but Connect, which shows the command to copy', async () => {
    const user = userEvent.setup();
    renderView();
    const row = within(rowOf('postgres'));
    expect(row.queryByRole('link')).toBeNull();
    expect(row.queryByRole('button', { name: /Launch/ })).toBeNull();
    await user.click(row.getByRole('button', { name: 'Connect to postgres' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect to postgres' });
    expect(within(dialog).getByLabelText('Tunnel command').textContent).toBe(
      'postern proxy app postgres',
    );
    await user.click(within(dialog).getByRole('button', { name: 'Copy command' }));
    expect(await navigator.clipboard.readText()).toBe('postern proxy app postgres');
    expect(within(dialog).getByRole('button', { name: 'Copied' })).toBeTruthy();
  });

  it('a trusted leaf’s web apps launch here; its TCP apps take the tunnel with --cluster', async () => {
    const user = userEvent.setup();
    renderView({ leaf: 'lab' });
    const launch = within(rowOf('grafana')).getByRole('link', { name: 'Launch grafana' });
    expect(launch.getAttribute('href')).toMatch(/^\/web\/launch\//);
    const row = within(rowOf('postgres'));
    await user.click(row.getByRole('button', { name: 'Connect to postgres' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect to postgres' });
    expect(within(dialog).getByLabelText('Tunnel command').textContent).toBe(
      'postern proxy app postgres --cluster lab',
    );
    expect(screen.getAllByRole('button', { name: /^Connect to/ })).toHaveLength(1);
  });

  it('HTTP apps have no Connect button', () => {
    renderView();
    expect(screen.getAllByRole('button', { name: /^Connect to/ })).toHaveLength(1);
  });

  it('clicking a label chip adds its clause to the query', async () => {
    const { onFiltersChange } = renderView();
    await userEvent.setup().click(within(rowOf('grafana')).getByText('env: prod'));
    expect(onFiltersChange).toHaveBeenCalledWith({
      ...noFilters,
      query: 'labels["env"] == "prod"',
    });
  });

  it('adds a second label to the clauses in force, shown as removable filters', async () => {
    const query = labelClause('env', 'prod');
    const { onFiltersChange } = renderView({ filters: { search: '', query } });
    const filters = screen.getByRole('list', { name: 'Label filters' });
    expect(within(filters).getByText('env: prod')).toBeTruthy();
    const user = userEvent.setup();
    await user.click(within(rowOf('grafana')).getByText('team: ops'));
    expect(onFiltersChange).toHaveBeenLastCalledWith({
      search: '',
      query: `${query} && labels["team"] == "ops"`,
    });
    await user.click(screen.getByRole('button', { name: 'Remove filter env: prod' }));
    expect(onFiltersChange).toHaveBeenLastCalledWith({ search: '', query: '' });
  });

  it('marks the server’s default order (name, ascending) and sorts by name, description, address', async () => {
    const user = userEvent.setup();
    const { onFiltersChange } = renderView();
    expect(screen.getByRole('columnheader', { name: /Name/ }).getAttribute('aria-sort')).toBe(
      'ascending',
    );
    await user.click(screen.getByRole('button', { name: /Name/ }));
    expect(onFiltersChange).toHaveBeenLastCalledWith({
      ...noFilters,
      sort: { field: 'name', dir: 'desc' },
    });
    await user.click(screen.getByRole('button', { name: /Description/ }));
    expect(onFiltersChange).toHaveBeenLastCalledWith({
      ...noFilters,
      sort: { field: 'description', dir: 'asc' },
    });
    await user.click(screen.getByRole('button', { name: /Address/ }));
    expect(onFiltersChange).toHaveBeenLastCalledWith({
      ...noFilters,
      sort: { field: 'publicAddr', dir: 'asc' },
    });
    expect(screen.queryByRole('button', { name: /Labels/ })).toBeNull();
  });

  it('pages with Next, using the server’s start key', async () => {
    const { paging } = renderView({ apps: manyApps(15), startKey: 'key-2', totalCount: 40 });
    expect(screen.getByText('1–15 of 40')).toBeTruthy();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Next page' }));
    expect(paging.onNext).toHaveBeenCalledWith('key-2');
  });

  it('on narrow screens, description, address and labels give way', () => {
    renderView();
    const header = (name: RegExp) => screen.getByRole('columnheader', { name });
    expect(header(/Description/).className).toContain('mantine-visible-from-md');
    expect(header(/Address/).className).toContain('mantine-visible-from-sm');
    expect(header(/Labels/).className).toContain('mantine-visible-from-sm');
    expect(header(/Name/).className).not.toContain('mantine-visible-from');
  });

  it('with no applications at all, explains how to add one', () => {
    renderView({ apps: [], totalCount: 0 });
    const help = screen.getByRole('region', { name: 'No applications yet' });
    expect(help.textContent).toContain('postern create -f app.yaml');
    expect(help.textContent).toContain('kind: app');
    expect(help.textContent).toContain('apps:');
    expect(help.textContent).toContain('<name>.proxy.example.com');
    expect(help.textContent).toContain('postern proxy app <name>');
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('with filters and no match, keeps the filters and says nothing matches', () => {
    renderView({ apps: [], totalCount: 0, filters: { search: 'nope', query: '' } });
    expect(screen.getByText('No applications match your search.')).toBeTruthy();
    expect(
      (screen.getByRole('searchbox', { name: 'Search applications' }) as HTMLInputElement).value,
    ).toBe('nope');
  });
});
