import { useInfiniteQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import { fetchAuditPage } from './auditApi';

export interface AuditSearch {
  from: Date;
  to: Date;
  types: string[];
  search: string;
}

export const auditQueryKey = (clusterId: string, search: AuditSearch | undefined) =>
  [
    'auditEvents',
    clusterId,
    search && {
      from: search.from.toISOString(),
      to: search.to.toISOString(),
      types: search.types,
      search: search.search,
    },
  ] as const;

/**
 * The events of one search, 5000 per request, following the server's startKey for as long as
 * the user asks for more: there is no cap on how far they can page. `search` undefined (a
 * half-typed custom range) fetches nothing.
 */
export function useAuditLog(clusterId: string, search: AuditSearch | undefined) {
  const query = useInfiniteQuery({
    queryKey: auditQueryKey(clusterId, search),
    enabled: search !== undefined,
    initialPageParam: '',
    queryFn: ({ pageParam, signal }) =>
      fetchAuditPage(clusterId, { ...search!, startKey: pageParam }, signal),
    getNextPageParam: (page) => page.startKey || undefined,
    // Audit events do not change; a search is refreshed only on request.
    staleTime: Infinity,
  });
  const events = query.data?.pages.flatMap((page) => page.events);
  const { fetchNextPage } = query;
  // Stable, and never restarts a page already on its way.
  const loadMore = useCallback(() => {
    void fetchNextPage({ cancelRefetch: false });
  }, [fetchNextPage]);
  return { query, events, hasMore: query.hasNextPage, loadMore };
}
