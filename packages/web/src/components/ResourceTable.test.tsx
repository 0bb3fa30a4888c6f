import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { renderWithTheme } from '../test/render';
import { nextSort, ResourceTable, type Column, type TableSort } from './ResourceTable';

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

  it('names the table for screen readers without a visible caption', () => {
    renderWithTheme(
      <ResourceTable columns={columns} rows={rows} rowKey={(r) => r.name} label="Things" />,
    );
    expect(screen.getByRole('table', { name: 'Things' })).toBeTruthy();
  });

  it('leaves `visibleFrom` columns out on narrow screens and keeps `fit` columns whole', () => {
    const responsive: Column<Row>[] = [
      { key: 'name', header: 'Name' },
      { key: 'label', header: 'Label', visibleFrom: 'md', render: (r) => r.name },
      { key: 'count', header: 'Count', fit: true },
    ];
    renderWithTheme(<ResourceTable columns={responsive} rows={rows} rowKey={(r) => r.name} />);
    const [name, label, count] = screen.getAllByRole('columnheader');
    const cells = within(bodyRows()[0]!).getAllByRole('cell');
    // Mantine's class hides the element below the breakpoint (a media query jsdom cannot run).
    expect(label?.className).toContain('mantine-visible-from-md');
    expect(cells[1]?.className).toContain('mantine-visible-from-md');
    expect(name?.className).not.toContain('mantine-visible-from');
    expect(count?.style.whiteSpace).toBe('nowrap');
    expect(cells[2]?.style.width).toBe('1%');
    expect((cells[2]?.firstElementChild as HTMLElement).style.width).toBe('max-content');
    expect(cells[0]?.style.whiteSpace).toBe('');
  });

  it('the sort arrow is for the eye: the header keeps its name, aria-sort says the order', async () => {
    const user = userEvent.setup();
    renderWithTheme(<ResourceTable columns={columns} rows={rows} rowKey={(r) => r.name} />);
    await user.click(screen.getByRole('button', { name: 'Name' }));
    const header = screen.getAllByRole('columnheader')[0]!;
    expect(header.textContent).toBe('Name ▲');
    expect(within(header).getByRole('button', { name: 'Name' })).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Name' }));
    expect(header.textContent).toBe('Name ▼');
    expect(header.getAttribute('aria-sort')).toBe('descending');
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

describe('ResourceTable with server-side (controlled) sort', () => {
  it('reports header clicks and keeps the rows in the order given', async () => {
    const user = userEvent.setup();
    const onSortChange = vi.fn();
    renderWithTheme(
      <ResourceTable
        columns={columns}
        rows={rows}
        rowKey={(r) => r.name}
        sort={{ key: 'name', dir: 'asc' }}
        onSortChange={onSortChange}
      />,
    );
    expect(firstCells()).toEqual(['beta', 'alpha', 'gamma']);
    expect(screen.getAllByRole('columnheader')[0]?.getAttribute('aria-sort')).toBe('ascending');
    await user.click(screen.getByRole('button', { name: /Name/ }));
    expect(onSortChange).toHaveBeenLastCalledWith({ key: 'name', dir: 'desc' });
    await user.click(screen.getByRole('button', { name: /Count/ }));
    expect(onSortChange).toHaveBeenLastCalledWith({ key: 'count', dir: 'asc' });
    expect(firstCells()).toEqual(['beta', 'alpha', 'gamma']);
  });

  it('follows the sort it is given', async () => {
    function Controlled() {
      const [sort, setSort] = useState<TableSort | undefined>();
      return (
        <ResourceTable
          columns={columns}
          rows={rows}
          rowKey={(r) => r.name}
          sort={sort}
          onSortChange={setSort}
        />
      );
    }
    const user = userEvent.setup();
    renderWithTheme(<Controlled />);
    const header = () => screen.getAllByRole('columnheader')[1];
    expect(header()?.getAttribute('aria-sort')).toBeNull();
    await user.click(screen.getByRole('button', { name: /Count/ }));
    expect(header()?.getAttribute('aria-sort')).toBe('ascending');
    await user.click(screen.getByRole('button', { name: /Count/ }));
    expect(header()?.getAttribute('aria-sort')).toBe('descending');
  });

  it('nextSort: ascending first, then toggling', () => {
    expect(nextSort(undefined, 'a')).toEqual({ key: 'a', dir: 'asc' });
    expect(nextSort({ key: 'a', dir: 'asc' }, 'a')).toEqual({ key: 'a', dir: 'desc' });
    expect(nextSort({ key: 'a', dir: 'desc' }, 'a')).toEqual({ key: 'a', dir: 'asc' });
    expect(nextSort({ key: 'a', dir: 'desc' }, 'b')).toEqual({ key: 'b', dir: 'asc' });
  });
});
