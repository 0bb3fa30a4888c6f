import {
  Badge,
  Group,
  Stack,
  Text,
  Title,
  VisuallyHidden,
  type MantineBreakpoint,
} from '@mantine/core';
import type { ReactNode } from 'react';
import type { Attempt } from '../../lib/attempt';
import { AttemptView } from '../AttemptView';
import { pageRange } from '../cursorPaging';
import { FilterChips, LabelChips, type Label } from '../LabelChips';
import { Pager } from '../Pager';
import { ResourceTable, type Column, type TableSort } from '../ResourceTable';
import { SearchInput } from '../SearchInput';
import {
  addLabel,
  isFiltered,
  queryLabels,
  removeLabel,
  type ListFilters,
  type ListSort,
} from './listFilters';
import type { ListPaging } from './useResourceList';

/** One page of a server-side listing, whatever the kind. */
export interface ResourcePage<Row> {
  items: Row[];
  /** The next page's key; '' on the last page. */
  startKey: string;
  totalCount: number;
}

/** What a cell may do to the list it sits in. */
export interface ListCellContext {
  /** Narrow the list to rows with this label (a clause added to the label query). */
  selectLabel: (label: Label) => void;
}

/** A column of a resource list: the kind says what a cell shows, the list does the rest. */
export interface ListColumn<Row, Field extends string = string> {
  id: string;
  header: ReactNode;
  cell: (row: Row, list: ListCellContext) => ReactNode;
  /** The server's sort field behind this column; without one the column does not sort. */
  sortKey?: Field;
  /** Shown from this breakpoint up; narrower screens leave the column out. */
  visibleFrom?: MantineBreakpoint;
  /** As narrow as its content, never wrapped or squeezed (badges, buttons). */
  fit?: boolean;
}

/** The usual labels column: chips that filter the list when clicked. */
export function labelsColumn<Row>(
  labelsOf: (row: Row) => Label[],
  options: { visibleFrom?: MantineBreakpoint } = {},
): ListColumn<Row, never> {
  return {
    id: 'labels',
    header: 'Labels',
    visibleFrom: options.visibleFrom,
    cell: (row, list) => <LabelChips labels={labelsOf(row)} onSelect={list.selectLabel} />,
  };
}

/** The name column of a resource with a status: the name, and a red "offline" when it is. */
export function nameColumn<Row, Field extends string>(
  sortKey: Field,
  nameOf: (row: Row) => string,
  statusOf: (row: Row) => 'online' | 'offline',
): ListColumn<Row, Field> {
  return {
    id: 'name',
    header: 'Name',
    sortKey,
    cell: (row) => (
      <Group gap={6} wrap="nowrap">
        <Text size="sm" fw={600} style={{ overflowWrap: 'anywhere' }}>
          {nameOf(row)}
        </Text>
        {statusOf(row) === 'offline' && (
          <Badge color="red" variant="light" tt="none">
            offline
          </Badge>
        )}
      </Group>
    ),
  };
}

/** A plain description column, shown from medium widths up. */
export function descriptionColumn<Row, Field extends string>(
  sortKey: Field,
  descriptionOf: (row: Row) => string,
): ListColumn<Row, Field> {
  return {
    id: 'description',
    header: 'Description',
    sortKey,
    visibleFrom: 'md',
    cell: (row) => <Text size="sm">{descriptionOf(row)}</Text>,
  };
}

export interface ResourceListProps<Row, Field extends string> {
  /** The page heading; left out when `compact`. */
  title: string;
  /** Names the rows in the pager's label and the default empty state, e.g. 'servers'. */
  itemsLabel: string;
  columns: ListColumn<Row, Field>[];
  rowKey: (row: Row) => string;
  /** The last cell of each row (a connect or launch menu), under a visually hidden header. */
  rowAction?: (row: Row) => ReactNode;
  /** A second action beside the row's own (Add to request), in the same cell. */
  extraRowAction?: (row: Row) => ReactNode;
  attempt: Attempt<ResourcePage<Row>>;
  onRetry: () => void;
  filters: ListFilters<Field>;
  onFiltersChange: (filters: ListFilters<Field>) => void;
  paging: ListPaging;
  pageSize: number;
  /** The order the server uses when no sort is asked for, marked on its column all the same. */
  defaultSort?: ListSort<Field>;
  search: { label: string; placeholder: string };
  /** Shown in the table when filters leave no rows. */
  noMatchText: ReactNode;
  /** Shown instead of the list when there are no rows at all and no filters. */
  emptyState?: ReactNode;
  /** A note above the table about the rows shown (or nothing). */
  notice?: (rows: Row[]) => ReactNode;
  /** Inside the console: no page heading, tighter rows. */
  compact?: boolean;
  /** A new page is on its way (the old one is still shown). */
  busy?: boolean;
  /** Controls beside the page heading (shown even when the list is empty). */
  headerActions?: ReactNode;
  /** Filters of the kind's own beside the search box (the unified list's kinds). */
  filterControls?: ReactNode;
}

/** What a page adds around a kind's list: a second row action and controls by the heading. */
export type ResourceListExtras<Row> = Pick<
  ResourceListProps<Row, string>,
  'extraRowAction' | 'headerActions'
>;

/**
 * A server-side resource list: search, label filters, sort and keyset pages, with loading and
 * error states. Pure: the rows, filters and paging come in as props (see `useResourceList`), and
 * everything that belongs to a kind comes in as its columns, row action and texts.
 */
export function ResourceList<Row extends object, Field extends string>(
  props: ResourceListProps<Row, Field>,
) {
  const { title, itemsLabel, columns, rowKey, rowAction, extraRowAction, attempt, onRetry } = props;
  const { filters, onFiltersChange, paging, pageSize, defaultSort, search, noMatchText } = props;
  const {
    emptyState,
    notice,
    compact = false,
    busy = false,
    headerActions,
    filterControls,
  } = props;
  const labels = filters.query ? queryLabels(filters.query) : [];
  const list: ListCellContext = {
    selectLabel: (label) => onFiltersChange({ ...filters, query: addLabel(filters.query, label) }),
  };

  const sort = filters.sort ?? defaultSort;
  const sortedColumn = sort && columns.find((c) => c.sortKey === sort.field);
  const tableSort: TableSort | undefined = sortedColumn &&
    sort && { key: sortedColumn.id, dir: sort.dir };
  const onSortChange = (next: TableSort) => {
    const field = columns.find((c) => c.id === next.key)?.sortKey;
    if (field) onFiltersChange({ ...filters, sort: { field, dir: next.dir } });
  };

  const tableColumns: Column<Row>[] = columns.map((c) => ({
    key: c.id,
    header: c.header,
    render: (row: Row) => c.cell(row, list),
    sortable: c.sortKey !== undefined,
    visibleFrom: c.visibleFrom,
    fit: c.fit,
  }));
  if (rowAction || extraRowAction) {
    tableColumns.push({
      key: 'row-action',
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      fit: true,
      render: (row: Row) =>
        extraRowAction ? (
          <Group gap={4} wrap="nowrap">
            {rowAction?.(row)}
            {extraRowAction(row)}
          </Group>
        ) : (
          rowAction?.(row)
        ),
    });
  }

  return (
    <Stack gap="md">
      {!compact && (
        <Group justify="space-between">
          <Title order={2}>{title}</Title>
          {headerActions}
        </Group>
      )}
      {compact && headerActions}
      <AttemptView attempt={attempt} onRetry={onRetry}>
        {(page) =>
          page.totalCount === 0 && !isFiltered(filters) ? (
            (emptyState ?? <Text c="dimmed">No {itemsLabel} yet.</Text>)
          ) : (
            <Stack gap="sm">
              <Group justify="space-between" align="flex-end">
                <SearchInput
                  label={search.label}
                  placeholder={search.placeholder}
                  value={filters.search}
                  onSearch={(text) => onFiltersChange({ ...filters, search: text })}
                />
                {filterControls}
              </Group>
              {notice?.(page.items)}
              <FilterChips
                labels={labels}
                onRemove={(label) =>
                  onFiltersChange({ ...filters, query: removeLabel(filters.query, label) })
                }
                onClear={() => onFiltersChange({ ...filters, query: '' })}
              />
              <ResourceTable
                columns={tableColumns}
                rows={page.items}
                rowKey={rowKey}
                sort={tableSort}
                onSortChange={onSortChange}
                compact={compact}
                emptyText={noMatchText}
              />
              <Pager
                {...pageRange(paging.pageIndex, pageSize, page.items.length, page.totalCount)}
                itemsLabel={itemsLabel}
                canPrev={paging.canPrev}
                canNext={page.startKey !== ''}
                onPrev={paging.onPrev}
                onNext={() => paging.onNext(page.startKey)}
                busy={busy}
              />
            </Stack>
          )
        }
      </AttemptView>
    </Stack>
  );
}
