import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { labelClause } from '@postern/contracts';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Choice } from '../../components/ChoiceMenu';
import { renderWithTheme } from '../../test/render';
import type { LoginsHelp } from './AddLoginsHint';
import { manyNodes, nodeFixtures } from './fixtures';
import {
  addLabel,
  makeNode,
  noFilters,
  removeLabel,
  type NodeFilters,
  type ServerNode,
} from './makeNode';
import { NodesView, type NodesPaging } from './NodesView';
import { proxyAddressOf } from './NodesPage';

const proxy = { addr: 'proxy.example.com:3080', origin: 'https://proxy.example.com:3080' };

interface Options {
  nodes?: typeof nodeFixtures;
  startKey?: string;
  totalCount?: number;
  filters?: NodeFilters;
  paging?: Partial<NodesPaging>;
  loginsHelp?: LoginsHelp;
  connect?: (node: ServerNode, login: string) => Choice;
}

const connectInNewTab = (node: ServerNode, login: string): Choice => ({
  label: login,
  href: `/web/cluster/root/console/node/${node.id}/${login}`,
  newTab: true,
});

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
    <MemoryRouter>
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
        connect={options.connect ?? connectInNewTab}
        loginsHelp={options.loginsHelp ?? { editHref: '/web/users?edit=alice' }}
        proxy={proxy}
      />
    </MemoryRouter>,
  );
  return { onFiltersChange, paging };
}

const rowOf = (hostname: string) =>
  screen.getByText(hostname, { selector: 'p' }).closest('tr') as HTMLElement;

afterEach(() => vi.restoreAllMocks());

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

  it('without a sort, marks the server’s default order (hostname, ascending)', () => {
    renderView();
    const header = screen.getByRole('columnheader', { name: /Hostname/ });
    expect(header.getAttribute('aria-sort')).toBe('ascending');
    expect(header.textContent).toContain('▲');
    expect(screen.getByRole('columnheader', { name: /Status/ }).getAttribute('aria-sort')).toBe(
      null,
    );
  });

  it('sortable headers ask the server for field:asc, then desc', async () => {
    const user = userEvent.setup();
    const { onFiltersChange } = renderView();
    // Hostname is already the (default) ascending sort, so its first click turns it around.
    await user.click(screen.getByRole('button', { name: /Hostname/ }));
    expect(onFiltersChange).toHaveBeenLastCalledWith({
      ...noFilters,
      sort: { field: 'hostname', dir: 'desc' },
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

  it('without logins, Connect says how to get some, with a link to the user’s edit dialog', async () => {
    renderView();
    await userEvent.setup().click(screen.getByRole('button', { name: 'Connect to legacy' }));
    const note = await screen.findByText(/You have no logins for this server\./);
    expect(note.textContent).toBe(
      'You have no logins for this server. Add logins to your user in Manage Users.',
    );
    const link = within(note).getByRole('link', { name: 'Manage Users' });
    expect(link.getAttribute('href')).toBe('/web/users?edit=alice');
    expect(screen.queryByRole('menuitem')).toBeNull();
  });

  it('a viewer who may not edit users is told to ask an admin, with no link', async () => {
    renderView({ loginsHelp: {} });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Connect to legacy' }));
    const note = await screen.findByText(/You have no logins for this server\./);
    expect(note.textContent).toBe(
      'You have no logins for this server. Ask an admin to add logins to your user.',
    );
    expect(within(note).queryByRole('link')).toBeNull();
  });

  it('from the console, the link opens Manage Users in a new browser tab', async () => {
    renderView({ loginsHelp: { editHref: '/web/users?edit=alice', newTab: true } });
    await userEvent.setup().click(screen.getByRole('button', { name: 'Connect to legacy' }));
    const link = await screen.findByRole('link', { name: 'Manage Users' });
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');
  });

  it('when no server listed offers a login, a note above the table says so', () => {
    const none = nodeFixtures.map((n) => ({ ...n, sshLogins: [] }));
    renderView({ nodes: none });
    expect(
      screen.getByText(/You have no logins for the servers listed here\./).textContent,
    ).toContain('Add logins to your user in Manage Users.');
  });

  it('with some logins, there is no such note', () => {
    renderView();
    expect(screen.queryByText(/You have no logins for the servers listed here/)).toBeNull();
  });

  it('typing in the Connect menu narrows the logins; Enter connects with what was typed', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    const user = userEvent.setup();
    renderView();
    await user.click(screen.getByRole('button', { name: 'Connect to db-1' }));
    const field = await screen.findByRole('searchbox', { name: 'Login' });
    await user.type(field, 'ubu');
    expect(screen.getAllByRole('menuitem').map((i) => i.textContent)).toEqual(['ubuntu']);
    await user.clear(field);
    await user.type(field, ' admin2 {Enter}');
    expect(open).toHaveBeenCalledWith(
      `/web/cluster/root/console/node/${nodeFixtures[0]!.id}/admin2`,
      '_blank',
      'noopener,noreferrer',
    );
    expect(screen.queryByRole('searchbox', { name: 'Login' })).toBeNull();
  });

  it('a login can be typed where none is listed; an action choice runs', async () => {
    const selected: string[] = [];
    const user = userEvent.setup();
    renderView({
      connect: (node, login) => ({
        label: login,
        onSelect: () => selected.push(`${login}@${node.hostname}`),
      }),
    });
    await user.click(screen.getByRole('button', { name: 'Connect to legacy' }));
    await user.type(await screen.findByRole('searchbox', { name: 'Login' }), 'operator{Enter}');
    expect(selected).toEqual(['operator@legacy']);
  });

  it('Enter with nothing typed does nothing', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    const user = userEvent.setup();
    renderView();
    await user.click(screen.getByRole('button', { name: 'Connect to legacy' }));
    await user.type(await screen.findByRole('searchbox', { name: 'Login' }), '   {Enter}');
    expect(open).not.toHaveBeenCalled();
  });

  it('on narrow screens, address and labels give way; status and Connect keep their width', () => {
    renderView();
    const header = (name: RegExp) => screen.getByRole('columnheader', { name });
    expect(header(/Address/).className).toContain('mantine-visible-from-sm');
    expect(header(/Labels/).className).toContain('mantine-visible-from-sm');
    expect(header(/Hostname/).className).not.toContain('mantine-visible-from');
    expect(header(/Status/).style.whiteSpace).toBe('nowrap');
    const connectCell = screen.getByRole('button', { name: 'Connect to db-1' }).closest('td')!;
    expect(connectCell.style.whiteSpace).toBe('nowrap');
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
