import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderWithTheme } from '../test/render';
import { ResourceTable, type Column } from './ResourceTable';

interface Row {
  name: string;
  count: number;
}

const columns: Column<Row>[] = [
  { key: 'name', header: 'Name', sortable: true },
  { key: 'count', header: 'Count', sortable: true },
  { key: 'label', header: 'Label', render: (r) => <b>{r.name.toUpperCase()}</b> },
];
const rows: Row[] = [
  { name: 'beta', count: 10 },
  { name: 'alpha', count: 9 },
  { name: 'gamma', count: 100 },
];

const bodyRows = () => screen.getAllByRole('row').slice(1);
const firstCells = () => bodyRows().map((r) => within(r).getAllByRole('cell')[0]?.textContent);

describe('ResourceTable', () => {
  it('renders headers, fields and custom cells', () => {
    renderWithTheme(<ResourceTable columns={columns} rows={rows} rowKey={(r) => r.name} />);
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Name',
      'Count',
      'Label',
    ]);
    expect(firstCells()).toEqual(['beta', 'alpha', 'gamma']);
    expect(screen.getByText('ALPHA').tagName).toBe('B');
  });

  it('sorts by a sortable column, toggling direction, numbers numerically', async () => {
    const user = userEvent.setup();
    renderWithTheme(<ResourceTable columns={columns} rows={rows} rowKey={(r) => r.name} />);
    await user.click(screen.getByRole('button', { name: /Name/ }));
    expect(firstCells()).toEqual(['alpha', 'beta', 'gamma']);
    expect(screen.getAllByRole('columnheader')[0]?.getAttribute('aria-sort')).toBe('ascending');
    await user.click(screen.getByRole('button', { name: /Name/ }));
    expect(firstCells()).toEqual(['gamma', 'beta', 'alpha']);
    await user.click(screen.getByRole('button', { name: /Count/ }));
    expect(firstCells()).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('shows the empty text when there are no rows', () => {
    renderWithTheme(
      <ResourceTable
        columns={columns}
        rows={[]}
        rowKey={(r) => r.name}
        emptyText="No rows here."
      />,
    );
    expect(screen.getByText('No rows here.')).toBeTruthy();
  });
});
