import { Table, Text, UnstyledButton, type MantineBreakpoint } from '@mantine/core';
import { useMemo, useState, type CSSProperties, type ReactNode } from 'react';

/**
 * A table driven by column specs: pages describe columns, this component renders and sorts.
 * Pure apart from its own sort state; it knows nothing about where the rows come from.
 *
 * Sorting is local by default. A server-sorted list passes `sort` and `onSortChange` instead: the
 * rows are then shown in the order given, and a header click only reports the new sort.
 *
 * Narrow screens: a column with `visibleFrom` is left out below that breakpoint, and a `fit`
 * column keeps its content whole, so what a row is for (its status, its action) stays on screen.
 */
export interface Column<Row> {
  key: string;
  header: ReactNode;
  /** Defaults to the row's field named `key`. */
  render?: (row: Row) => ReactNode;
  sortable?: boolean;
  /** What sorting compares; defaults to the row's field named `key`. */
  sortValue?: (row: Row) => string | number;
  /** Shown from this breakpoint up; narrower screens leave the column out. */
  visibleFrom?: MantineBreakpoint;
  /** As narrow as its content, never wrapped or squeezed (chips, buttons). */
  fit?: boolean;
}

export interface ResourceTableProps<Row> {
  columns: Column<Row>[];
  rows: Row[];
  rowKey: (row: Row) => string;
  emptyText?: ReactNode;
  caption?: string;
  /** The table's accessible name, when a visible caption would repeat the page title. */
  label?: string;
  initialSort?: TableSort;
  /** Controlled (server-side) sort: the current sort, or undefined for the server's order. */
  sort?: TableSort;
  /** Makes sorting controlled: called with the sort a header click asks for. */
  onSortChange?: (sort: TableSort) => void;
  /** Tighter rows and smaller text, for lists inside other screens. */
  compact?: boolean;
}

export type SortDir = 'asc' | 'desc';
export interface TableSort {
  key: string;
  dir: SortDir;
}

/** Clicking a header: ascending first, then toggling. */
export function nextSort(current: TableSort | undefined, key: string): TableSort {
  return { key, dir: current?.key === key && current.dir === 'asc' ? 'desc' : 'asc' };
}

// The column takes as little room as it can (1%) while its content keeps its whole width: a
// chip's label may clip with an ellipsis, so its own minimum would be next to nothing.
const fitStyle: CSSProperties = { width: '1%', whiteSpace: 'nowrap' };
const fitContentStyle: CSSProperties = { width: 'max-content' };
const cellProps = <Row,>(c: Column<Row>) => ({
  visibleFrom: c.visibleFrom,
  style: c.fit ? fitStyle : undefined,
});

const fieldOf = (row: object, key: string): unknown => (row as Record<string, unknown>)[key];

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return text(a).localeCompare(text(b), undefined, { numeric: true });
}

const cellContent = <Row extends object>(c: Column<Row>, row: Row): ReactNode =>
  c.render ? c.render(row) : text(fieldOf(row, c.key));

export function ResourceTable<Row extends object>(props: ResourceTableProps<Row>) {
  const { columns, rows, rowKey, emptyText = 'Nothing to show.', caption, initialSort } = props;
  const { onSortChange, compact = false, label } = props;
  const [localSort, setLocalSort] = useState(initialSort);
  const controlled = onSortChange !== undefined;
  const sort = controlled ? props.sort : localSort;

  const sorted = useMemo(() => {
    const column = sort && columns.find((c) => c.key === sort.key);
    if (controlled || !sort || !column) return rows;
    const value = (row: Row) =>
      column.sortValue ? column.sortValue(row) : fieldOf(row, column.key);
    const sign = sort.dir === 'asc' ? 1 : -1;
    return [...rows].sort((a, b) => sign * compare(value(a), value(b)));
  }, [rows, columns, sort, controlled]);

  const toggle = (key: string) => {
    if (onSortChange) onSortChange(nextSort(sort, key));
    else setLocalSort((s) => nextSort(s, key));
  };

  const ariaSort = (key: string) =>
    sort?.key === key ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined;

  return (
    <Table
      aria-label={label}
      striped
      highlightOnHover
      {...(compact ? { verticalSpacing: 4, horizontalSpacing: 'xs', fz: 'sm' } : {})}
    >
      {caption && <Table.Caption>{caption}</Table.Caption>}
      <Table.Thead>
        <Table.Tr>
          {columns.map((c) => (
            <Table.Th key={c.key} aria-sort={ariaSort(c.key)} {...cellProps(c)}>
              {c.sortable ? (
                <UnstyledButton onClick={() => toggle(c.key)} fz="inherit" fw="inherit">
                  {c.header}
                  {/* aria-sort says it to screen readers; the arrow is for the eye. */}
                  {sort?.key === c.key && (
                    <span aria-hidden="true" data-sort-arrow={sort.dir}>
                      {sort.dir === 'asc' ? ' ▲' : ' ▼'}
                    </span>
                  )}
                </UnstyledButton>
              ) : (
                c.header
              )}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {sorted.length === 0 ? (
          <Table.Tr>
            <Table.Td colSpan={columns.length}>
              <Text c="dimmed" ta="center">
                {emptyText}
              </Text>
            </Table.Td>
          </Table.Tr>
        ) : (
          sorted.map((row) => (
            <Table.Tr key={rowKey(row)}>
              {columns.map((c) => (
                <Table.Td key={c.key} {...cellProps(c)}>
                  {c.fit ? (
                    <div style={fitContentStyle}>{cellContent(c, row)}</div>
                  ) : (
                    cellContent(c, row)
                  )}
                </Table.Td>
              ))}
            </Table.Tr>
          ))
        )}
      </Table.Tbody>
    </Table>
  );
}
