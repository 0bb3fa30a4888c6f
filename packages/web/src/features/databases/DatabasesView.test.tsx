import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import type { ListPaging } from '../../components/resourceList/useResourceList';
import { renderWithTheme } from '../../test/render';
import { DatabasesView } from './DatabasesView';
import { databaseFixtures } from './fixtures';
import { connectCommand, makeDatabase, noFilters } from './makeDatabase';

function renderView(databases = databaseFixtures) {
  const paging: ListPaging = { pageIndex: 0, canPrev: false, onPrev: vi.fn(), onNext: vi.fn() };
  const onFiltersChange = vi.fn();
  renderWithTheme(
    <MemoryRouter>
      <DatabasesView
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
