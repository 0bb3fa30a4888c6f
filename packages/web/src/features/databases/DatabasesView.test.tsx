import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { ListPaging } from '../../components/resourceList/useResourceList';
import { renderWithTheme } from '../../test/render';
import { DatabasesView } from './DatabasesView';
import { databaseFixtures } from './fixtures';
import { connectCommand, makeDatabase, noFilters } from './makeDatabase';

function renderView(databases = databaseFixtures, leaf?: string) {
  const paging: ListPaging = { pageIndex: 0, canPrev: false, onPrev: vi.fn(), onNext: vi.fn() };
  const onFiltersChange = vi.fn();
  renderWithTheme(
    <MemoryRouter>
      <DatabasesView
        clusterId={leaf ?? 'root'}
        leaf={leaf}
        attempt={{
          status: 'success',
          data: {
            databases: databases.map(makeDatabase),
            startKey: '',
            totalCount: databases.length,
          },
        }}
        onRetry={vi.fn()}
        filters={noFilters}
        onFiltersChange={onFiltersChange}
        paging={paging}
        pageSize={15}
      />
    </MemoryRouter>,
  );
  return { onFiltersChange };
}

const rowOf = (name: string) =>
  screen.getByText(name, { selector: 'p' }).closest('tr') as HTMLElement;

describe('DatabasesView', () => {
  it('shows name, description, type title with hosting, the allowed users and names, labels', () => {
    renderView();
    const orders = within(rowOf('orders'));
    expect(orders.getByText('Orders (primary)')).toBeTruthy();
    expect(orders.getByText('PostgreSQL')).toBeTruthy();
    expect(orders.getByText('Self-hosted')).toBeTruthy();
    expect(orders.getByText('Users: reader, writer')).toBeTruthy();
    expect(orders.getByText('Names: orders')).toBeTruthy();
    expect(orders.getByText('env: prod')).toBeTruthy();
    const billing = within(rowOf('billing'));
    expect(billing.getByText('MySQL/MariaDB')).toBeTruthy();
    expect(billing.getByText('Users: any')).toBeTruthy();
    expect(billing.getByText('offline')).toBeTruthy();
  });

  it('Connect shows the exact command for the chosen user and name', async () => {
    const user = userEvent.setup();
    renderView();
    await user.click(within(rowOf('orders')).getByRole('button', { name: 'Connect to orders' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect to orders' });
    const command = within(dialog).getByLabelText('Connect command');
    expect(command.textContent).toBe('postern db connect orders --db-user reader --db-name orders');
    const dbUser = within(dialog).getByLabelText('Database user', { selector: 'input' });
    await user.clear(dbUser);
    await user.type(dbUser, 'writer');
    expect(command.textContent).toBe('postern db connect orders --db-user writer --db-name orders');
    const dbName = within(dialog).getByLabelText('Database name', { selector: 'input' });
    await user.clear(dbName);
    expect(command.textContent).toBe('postern db connect orders --db-user writer');
  });

  it('Connect offers the SQL console of a PostgreSQL database for the chosen user and name', async () => {
    const user = userEvent.setup();
    renderView();
    await user.click(within(rowOf('orders')).getByRole('button', { name: 'Connect to orders' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect to orders' });
    const consoleLink = () => within(dialog).getByRole('link', { name: 'Open SQL console' });
    const link = consoleLink();
    expect(link.getAttribute('href')).toBe(
      '/web/cluster/root/databases/orders/console/reader/orders',
    );
    // A tab of its own, which cannot reach this one.
    expect(link.getAttribute('target')).toBe('_blank');
    expect(link.getAttribute('rel')).toBe('noopener noreferrer');

    const dbUser = within(dialog).getByLabelText('Database user', { selector: 'input' });
    await user.clear(dbUser);
    await user.type(dbUser, 'o’brien@corp');
    expect(consoleLink().getAttribute('href')).toBe(
      `/web/cluster/root/databases/orders/console/${encodeURIComponent('o’brien@corp')}/orders`,
    );

    // The console opens a session at once: without a database name there is nothing to open.
    await user.clear(within(dialog).getByLabelText('Database name', { selector: 'input' }));
    expect(within(dialog).queryByRole('link', { name: 'Open SQL console' })).toBeNull();
    const disabled = within(dialog).getByRole('button', { name: 'Open SQL console' });
    expect(disabled.hasAttribute('disabled')).toBe(true);
  });

  it('Connect to a MySQL database offers its SQL console too, once a user is picked', async () => {
    const user = userEvent.setup();
    renderView();
    await user.click(within(rowOf('billing')).getByRole('button', { name: 'Connect to billing' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect to billing' });
    expect(within(dialog).getByLabelText('Connect command').textContent).toBe(
      'postern db connect billing --db-user <db-user> --db-name billing',
    );
    // Any user is allowed, so none is picked for the person: the console waits for one.
    const disabled = within(dialog).getByRole('button', { name: 'Open SQL console' });
    expect(disabled.hasAttribute('disabled')).toBe(true);
    await user.type(within(dialog).getByLabelText('Database user', { selector: 'input' }), 'ops');
    expect(
      within(dialog).getByRole('link', { name: 'Open SQL console' }).getAttribute('href'),
    ).toBe('/web/cluster/root/databases/billing/console/ops/billing');
  });

  it('Connect to a database the console does not speak shows the command only', async () => {
    const user = userEvent.setup();
    renderView([{ ...databaseFixtures[0]!, name: 'docs', protocol: 'mongodb' }]);
    await user.click(within(rowOf('docs')).getByRole('button', { name: 'Connect to docs' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect to docs' });
    expect(within(dialog).getByLabelText('Connect command').textContent).toContain(
      'postern db connect docs',
    );
    expect(within(dialog).queryByRole('link', { name: 'Open SQL console' })).toBeNull();
    expect(within(dialog).queryByRole('button', { name: 'Open SQL console' })).toBeNull();
    expect(within(dialog).queryByText(/SQL console/)).toBeNull();
  });

  it('Connect on a trusted leaf’s database names the leaf with --cluster', async () => {
    const user = userEvent.setup();
    renderView(databaseFixtures, 'lab');
    await user.click(within(rowOf('billing')).getByRole('button', { name: 'Connect to billing' }));
    const dialog = await screen.findByRole('dialog', { name: 'Connect to billing' });
    expect(within(dialog).getByLabelText('Connect command').textContent).toBe(
      'postern db connect billing --cluster lab --db-user <db-user> --db-name billing',
    );
  });

  it('says when the roles allow any user or database, and quotes what the shell would split', () => {
    expect(connectCommand({ name: 'billing' }, "o'brien", 'my db')).toBe(
      `postern db connect billing --db-user 'o'\\''brien' --db-name 'my db'`,
    );
    expect(connectCommand({ name: 'billing' }, '', '')).toBe(
      'postern db connect billing --db-user <db-user>',
    );
  });

  it('shows how to add a database when there is none', () => {
    renderView([]);
    expect(screen.getByRole('heading', { name: 'No databases yet' })).toBeTruthy();
    expect(screen.getByText('postern create -f db.yaml')).toBeTruthy();
  });
});
