import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { labelClause } from '@postern/contracts';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../../test/render';
import { manyNodes, nodeFixtures } from './fixtures';
import { addLabel, makeNode, noFilters, removeLabel, type NodeFilters } from './makeNode';
import { NodesView, type NodesPaging } from './NodesView';
import { proxyAddressOf } from './NodesPage';

const proxy = { addr: 'proxy.example.com:3080', origin: 'https://proxy.example.com:3080' };

interface Options {
  nodes?: typeof nodeFixtures;
  startKey?: string;
  totalCount?: number;
  filters?: NodeFilters;
  paging?: Partial<NodesPaging>;
}

function renderView(options: Options = {}) {
  const nodes = (options.nodes ?? nodeFixtures).map(makeNode);
  const onFiltersChange = vi.fn();
  const paging: NodesPaging = {
    pageIndex: 0,
    canPrev: false,
    onPrev: vi.fn(),
    onNext: vi.fn(),
    ...options.paging,
  };
  renderWithTheme(
    <NodesView
      attempt={{
        status: 'success',
        data: {
          nodes,
          startKey: options.startKey ?? '',
          totalCount: options.totalCount ?? nodes.length,
        },
      }}
      onRetry={vi.fn()}
      filters={options.filters ?? noFilters}
      onFiltersChange={onFiltersChange}
      paging={paging}
      pageSize={15}
      connect={(node, login) => ({
        label: login,
        href: `/web/cluster/root/console/node/${node.id}/${login}`,
        newTab: true,
      })}
      proxy={proxy}
    />,
  );
  return { onFiltersChange, paging };
}

const rowOf = (hostname: string) =>
  screen.getByText(hostname, { selector: 'p' }).closest('tr') as HTMLElement;

describe('NodesView', () => {
  it('shows hostname, address or tunnel, OpenSSH, labels and status', () => {
    renderView();
    expect(
      screen.getAllByRole('columnheader').map((h) => h.textContent?.replace(/[▲▼ ]+$/, '')),
    ).toEqual(['Hostname', 'Address', 'Labels', 'Status', 'Actions']);
    const db = within(rowOf('db-1'));
    expect(db.getByText('10.0.0.12:3022')).toBeTruthy();
    expect(db.getByText('env: prod')).toBeTruthy();
    expect(db.getByText('online')).toBeTruthy();
    const web = within(rowOf('web-1'));
    expect(web.getByText('Tunnel')).toBeTruthy();
    expect(web.getByText('offline')).toBeTruthy();
    const legacy = within(rowOf('legacy'));
    expect(legacy.getByText('legacy.internal:22')).toBeTruthy();
    expect(legacy.getByText('OpenSSH')).toBeTruthy();
  });

  it('clicking a label chip adds its clause to the query', async () => {
    const { onFiltersChange } = renderView();
    await userEvent.setup().click(within(rowOf('db-1')).getByText('env: prod'));
    expect(onFiltersChange).toHaveBeenCalledWith({
      ...noFilters,
      query: 'labels["env"] == "prod"',
    });
  });

  it('joins label clauses with && and shows them as removable filters', async () => {
    const query = `${labelClause('env', 'prod')} && ${labelClause('role', 'database')}`;
    const { onFiltersChange } = renderView({ filters: { search: '', query } });
    const filters = screen.getByRole('list', { name: 'Label filters' });
    expect(
      within(filters)
        .getAllByRole('listitem')
        .map((c) => c.textContent),
    ).toEqual(['env: prod', 'role: database']);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: 'Remove filter env: prod' }));
    expect(onFiltersChange).toHaveBeenLastCalledWith({
      search: '',
      query: 'labels["role"] == "database"',
    });
    await user.click(within(rowOf('web-1')).getByText('env: staging'));
    expect(onFiltersChange).toHaveBeenLastCalledWith({
      search: '',
      query: `${query} && labels["env"] == "staging"`,
    });
  });

  it('sortable headers ask the server for field:asc, then desc', async () => {
    const user = userEvent.setup();
    const { onFiltersChange } = renderView();
    await user.click(screen.getByRole('button', { name: /Hostname/ }));
    expect(onFiltersChange).toHaveBeenLastCalledWith({
      ...noFilters,
      sort: { field: 'hostname', dir: 'asc' },
    });
    await user.click(screen.getByRole('button', { name: /Address/ }));
    expect(onFiltersChange).toHaveBeenLastCalledWith({
      ...noFilters,
      sort: { field: 'addr', dir: 'asc' },
    });
    expect(screen.queryByRole('button', { name: /Labels/ })).toBeNull();
  });

  it('a sorted column shows its direction and toggles to desc', async () => {
    const filters: NodeFilters = { ...noFilters, sort: { field: 'status', dir: 'asc' } };
    const { onFiltersChange } = renderView({ filters });
    const header = screen.getByRole('columnheader', { name: /Status/ });
    expect(header.getAttribute('aria-sort')).toBe('ascending');
    // Rows stay in the server's order: the table does not sort them again.
    expect(
      screen
        .getAllByRole('row')
        .slice(1)
        .map((r) => r.querySelector('p')?.textContent),
    ).toEqual(['db-1', 'web-1', 'legacy']);
    await userEvent.setup().click(within(header).getByRole('button'));
    expect(onFiltersChange).toHaveBeenCalledWith({
      ...filters,
      sort: { field: 'status', dir: 'desc' },
    });
  });

  it('pages with Prev and Next and says which rows are shown', async () => {
    const user = userEvent.setup();
    const first = renderView({ nodes: manyNodes(15), startKey: 'key-2', totalCount: 40 });
    expect(screen.getByText('1–15 of 40')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Previous page' })).toHaveProperty('disabled', true);
    await user.click(screen.getByRole('button', { name: 'Next page' }));
    expect(first.paging.onNext).toHaveBeenCalledWith('key-2');
  });

  it('the last page has no Next, and Prev goes back', async () => {
    const { paging } = renderView({
      nodes: manyNodes(10),
      startKey: '',
      totalCount: 40,
      paging: { pageIndex: 2, canPrev: true },
    });
    expect(screen.getByText('31–40 of 40')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Next page' })).toHaveProperty('disabled', true);
    await userEvent.setup().click(screen.getByRole('button', { name: 'Previous page' }));
    expect(paging.onPrev).toHaveBeenCalled();
  });

  it('the Connect menu lists the server’s logins as links to a new tab', async () => {
    renderView();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Connect to db-1' }));
    const items = await screen.findAllByRole('menuitem');
    expect(items.map((i) => i.textContent)).toEqual(['root', 'ubuntu']);
    expect(items[0]?.getAttribute('href')).toBe(
      `/web/cluster/root/console/node/${nodeFixtures[0]!.id}/root`,
    );
    expect(items[0]?.getAttribute('target')).toBe('_blank');
    expect(items[0]?.getAttribute('rel')).toContain('noopener');
  });

  it('without logins, Connect is disabled and says why', async () => {
    renderView();
    const button = screen.getByRole('button', { name: 'Connect to legacy' });
    expect(button.getAttribute('aria-disabled')).toBe('true');
    await userEvent.setup().hover(button);
    expect(await screen.findByText('no logins allowed for this server')).toBeTruthy();
    await userEvent.setup().click(button);
    expect(screen.queryByRole('menuitem')).toBeNull();
  });

  it('with no servers at all, explains the three ways to add one', () => {
    renderView({ nodes: [], totalCount: 0 });
    const help = screen.getByRole('region', { name: 'No servers yet' });
    expect(within(help).getByText('The Postern host itself.')).toBeTruthy();
    expect(help.textContent).toContain('postern tokens add --type node');
    expect(help.textContent).toContain(
      'postern agent --proxy proxy.example.com:3080 --token <token>',
    );
    expect(help.textContent).toContain('postern nodes add --name <name> --addr <host>:22');
    expect(help.textContent).toContain(
      'curl https://proxy.example.com:3080/scripts/<token>/install-node.sh | sudo bash',
    );
    expect(screen.queryByRole('table')).toBeNull();
  });

  it('with filters and no match, keeps the filters and says nothing matches', () => {
    renderView({ nodes: [], totalCount: 0, filters: { search: 'nope', query: '' } });
    expect(screen.getByText('No servers match your search.')).toBeTruthy();
    expect(
      (screen.getByRole('searchbox', { name: 'Search servers' }) as HTMLInputElement).value,
    ).toBe('nope');
  });
});

describe('label queries', () => {
  it('adds a clause once and removes one', () => {
    const q = addLabel('', { name: 'env', value: 'prod' });
    expect(addLabel(q, { name: 'env', value: 'prod' })).toBe(q);
    const both = addLabel(q, { name: 'team', value: 'a "b"' });
    expect(both).toBe('labels["env"] == "prod" && labels["team"] == "a \\"b\\""');
    expect(removeLabel(both, { name: 'env', value: 'prod' })).toBe('labels["team"] == "a \\"b\\""');
  });
});

describe('proxyAddressOf', () => {
  it('uses the page’s port, or the scheme’s default', () => {
    expect(
      proxyAddressOf({
        protocol: 'https:',
        host: 'p.example.com:3080',
        hostname: 'p.example.com',
        port: '3080',
        origin: 'https://p.example.com:3080',
      }),
    ).toEqual({ addr: 'p.example.com:3080', origin: 'https://p.example.com:3080' });
    expect(
      proxyAddressOf({
        protocol: 'https:',
        host: 'p.example.com',
        hostname: 'p.example.com',
        port: '',
        origin: 'https://p.example.com',
      }).addr,
    ).toBe('p.example.com:443');
  });
});
