import { recordingRow } from '@postern/contracts';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { fetchRecordingsPage } from './recordingsApi';

export interface RecordingsSearch {
  from: Date;
  to: Date;
  search: string;
}

export const recordingsQueryKey = (clusterId: string, search: RecordingsSearch | undefined) =>
  [
    'recordings',
    clusterId,
    search && {
      from: search.from.toISOString(),
      to: search.to.toISOString(),
      search: search.search,
    },
  ] as const;

/**
 * The recordings of one search as rows, 5000 session end events per request, following the
 * server's startKey while the user pages on. `search` undefined (a half-typed custom range)
 * fetches nothing.
 */
export function useRecordings(clusterId: string, search: RecordingsSearch | undefined) {
  const query = useInfiniteQuery({
    queryKey: recordingsQueryKey(clusterId, search),
    enabled: search !== undefined,
    initialPageParam: '',
    queryFn: ({ pageParam, signal }) =>
      fetchRecordingsPage(clusterId, { ...search!, startKey: pageParam }, signal),
    getNextPageParam: (page) => page.startKey || undefined,
    // A finished session's end event does not change; a search is refreshed only on request.
    staleTime: Infinity,
  });
  const rows = useMemo(
    () => query.data?.pages.flatMap((page) => page.events.map(recordingRow)),
    [query.data],
  );
  const { fetchNextPage } = query;
  // Stable, and never restarts a page already on its way.
  const loadMore = useCallback(() => {
    void fetchNextPage({ cancelRefetch: false });
  }, [fetchNextPage]);
  return { query, rows, hasMore: query.hasNextPage, loadMore };
}
