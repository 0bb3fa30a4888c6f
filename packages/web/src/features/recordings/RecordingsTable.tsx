import { Group, Text } from '@mantine/core';
import type { RecordingRow } from '@postern/contracts';
import { useMemo, useState } from 'react';
import { useLoadedPaging } from '../../components/loadedPaging';
import { Pager } from '../../components/Pager';
import { ResourceTable, type TableSort } from '../../components/ResourceTable';
import { recordingColumns } from './recordingColumns';

/** "1 recording", "2 recordings". */
export const recordingCount = (n: number) => `${n} ${n === 1 ? 'recording' : 'recordings'}`;

/** Rows shown per page; the server sends 5000 at a time (spec §9). */
export const recordingsPageSize = 50;

interface Props {
  rows: RecordingRow[];
  /** The server has more recordings in the range after the loaded ones. */
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
  playHref: (row: RecordingRow) => string;
}

/**
 * The loaded recordings, 50 to a page, newest first as the server sends them. A sort orders
 * every loaded row, not just the page shown, so it starts again at page 1; rows the server has
 * not sent yet join the order as they arrive.
 */
export function RecordingsTable({ rows, hasMore, loadingMore, onLoadMore, playHref }: Props) {
  const [sort, setSort] = useState<TableSort | undefined>();
  const columns = useMemo(() => recordingColumns(playHref), [playHref]);
  const sorted = useMemo(() => {
    const sortValue = sort && columns.find((c) => c.key === sort.key)?.sortValue;
    if (!sort || !sortValue) return rows;
    const sign = sort.dir === 'asc' ? 1 : -1;
    return [...rows].sort((a, b) => sign * (Number(sortValue(a)) - Number(sortValue(b))));
  }, [rows, columns, sort]);
  const { shown, pager, toFirstPage } = useLoadedPaging(sorted, {
    pageSize: recordingsPageSize,
    hasMore,
    loadingMore,
    onLoadMore,
  });

  return (
    <>
      <ResourceTable
        label="Session Recordings"
        columns={columns}
        rows={shown}
        // A session ends once, so its id names its row; events from old versions may lack one.
        rowKey={(row) => row.sid || `${row.createdDate.getTime()}-${row.hostname}`}
        sort={sort}
        onSortChange={(next) => {
          setSort(next);
          toFirstPage();
        }}
        emptyText={loadingMore ? 'Loading more recordings…' : 'No recordings in this range'}
      />
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          {`${recordingCount(rows.length)}${hasMore ? ' loaded, more in this range' : ''}`}
        </Text>
        <Pager {...pager} itemsLabel="recordings" />
      </Group>
    </>
  );
}
