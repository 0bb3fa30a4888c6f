import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { useCursorPaging } from '../../components/cursorPaging';
import { attemptOf } from '../../lib/attempt';
import { filtersKey, parseSort, sortParam, type NodeFilters } from './makeNode';
import { fetchNodes, nodesPageSize, type NodeListRequest } from './nodesApi';

export const nodesQueryKey = (clusterId: string, request: NodeListRequest) =>
  ['nodes', clusterId, request] as const;

/**
 * One page of the server list, with cursor paging over it. Changing the filters goes back to
 * page 1; while a page loads, the previous one stays on screen.
 */
export function useNodes(clusterId: string, filters: NodeFilters) {
  const paging = useCursorPaging(filtersKey(filters));
  const request: NodeListRequest = { ...filters, startKey: paging.startKey, limit: nodesPageSize };
  const query = useQuery({
    queryKey: nodesQueryKey(clusterId, request),
    queryFn: ({ signal }) => fetchNodes(clusterId, request, signal),
    placeholderData: keepPreviousData,
  });
  // What every list of servers (the Servers page, the console's Servers tab) hands its view.
  const listProps = {
    attempt: attemptOf(query),
    onRetry: () => void query.refetch(),
    paging: {
      pageIndex: paging.pageIndex,
      canPrev: paging.canPrev,
      onPrev: paging.prev,
      onNext: paging.next,
    },
    pageSize: nodesPageSize,
    busy: query.isPlaceholderData,
  };
  return { query, paging, listProps };
}

/** The list's filters kept in the page's URL (`?search=&query=&sort=`), so views can be shared. */
export function useUrlNodeFilters(): [NodeFilters, (filters: NodeFilters) => void] {
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const query = params.get('query') ?? '';
  const sortText = params.get('sort');
  const filters = useMemo<NodeFilters>(
    () => ({ search, query, sort: parseSort(sortText) }),
    [search, query, sortText],
  );
  const setFilters = useCallback(
    (next: NodeFilters) => {
      const out = new URLSearchParams();
      if (next.search) out.set('search', next.search);
      if (next.query) out.set('query', next.query);
      const sort = sortParam(next.sort);
      if (sort) out.set('sort', sort);
      setParams(out, { replace: true });
    },
    [setParams],
  );
  return [filters, setFilters];
}
