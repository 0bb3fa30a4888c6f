import type { RecordingRow } from '@postern/contracts';
import { useCallback, useMemo, useState } from 'react';
import { useParams } from 'react-router';
import { useClientConfig } from '../../app/clientConfig';
import { routePath } from '../../app/routes';
import { initialTimeRange, rangeOf } from '../../components/timeRange';
import { attemptOf } from '../../lib/attempt';
import type { RecordingsFilter } from './RecordingsFilters';
import { RecordingsView } from './RecordingsView';
import { useRecordings } from './useRecordings';

/** Only the fields the attempt reads: react-query re-renders for the fields a page touches. */
const queryState = (query: { isPending: boolean; isError: boolean; error: unknown }) => ({
  isPending: query.isPending,
  isError: query.isError,
  error: query.error,
});

/** `/web/cluster/:clusterId/recordings` */
export function RecordingsPage() {
  const { proxyCluster } = useClientConfig();
  const clusterId = useParams().clusterId ?? proxyCluster;
  const [filter, setFilter] = useState<RecordingsFilter>(() => ({
    ...initialTimeRange('7d', new Date()),
    search: '',
  }));
  // A preset's end is "now" when the filter was chosen, so a search stays one fixed range.
  const search = useMemo(() => {
    const range = rangeOf(filter, new Date());
    return range && { ...range, search: filter.search };
  }, [filter]);
  const { query, rows, hasMore, loadMore } = useRecordings(clusterId, search);
  // The player reads the type and length from its query (routes.ts: player).
  const playHref = useCallback(
    (row: RecordingRow) =>
      routePath(
        'player',
        { clusterId, sid: row.sid },
        { recordingType: row.recordingType, durationMs: String(row.duration) },
      ),
    [clusterId],
  );

  return (
    <RecordingsView
      filter={filter}
      onFilterChange={setFilter}
      attempt={search ? attemptOf({ ...queryState(query), data: rows }) : undefined}
      onRetry={() => void query.refetch()}
      hasMore={hasMore}
      loadingMore={query.isFetchingNextPage}
      onLoadMore={loadMore}
      playHref={playHref}
    />
  );
}
