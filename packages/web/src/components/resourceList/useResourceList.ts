import { keepPreviousData, useQuery, type QueryKey } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { attemptOf } from '../../lib/attempt';
import { useCursorPaging } from '../cursorPaging';
import {
  listFiltersKey,
  listSortParam,
  parseListSort,
  type ListFilters,
  type ListPageRequest,
} from './listFilters';

/** Where the list is among its pages, and how to move: what the view's pager needs. */
export interface ListPaging {
  pageIndex: number;
  canPrev: boolean;
  onPrev: () => void;
  /** Called with the start key the server returned for the next page. */
  onNext: (startKey: string) => void;
}

export interface ResourceListSource<F extends ListFilters, Page> {
  /** The cache key of one page; it must hold everything the request holds. */
  queryKey: (request: ListPageRequest<F>) => QueryKey;
  /** One page from the server, searched, filtered and sorted there. */
  fetchPage: (request: ListPageRequest<F>, signal: AbortSignal) => Promise<Page>;
  pageSize: number;
  /** False holds the first request back (until what it depends on, such as preferences, is known). */
  enabled?: boolean;
}

/**
 * One page of a server-side resource list with keyset paging over it: the stack of start keys
 * the server returned, so Prev needs no offsets. Changing the filters goes back to page 1; while
 * a page loads, the previous one stays on screen (`busy`), so the table does not flash.
 *
 * The filters come from the caller (the page's URL, or a tab's own state); the kind comes in as
 * its fetcher, so this hook serves servers, apps, databases and the rest alike.
 */
export function useResourceList<F extends ListFilters, Page>(
  source: ResourceListSource<F, Page>,
  filters: F,
) {
  const { queryKey, fetchPage, pageSize, enabled = true } = source;
  const paging = useCursorPaging(listFiltersKey(filters));
  const request: ListPageRequest<F> = { ...filters, startKey: paging.startKey, limit: pageSize };
  const query = useQuery({
    queryKey: queryKey(request),
    queryFn: ({ signal }) => fetchPage(request, signal),
    placeholderData: keepPreviousData,
    enabled,
  });
  const listPaging: ListPaging = {
    pageIndex: paging.pageIndex,
    canPrev: paging.canPrev,
    onPrev: paging.prev,
    onNext: paging.next,
  };
  // What a list view takes besides its filters: the page (or why not), retry, paging, busy.
  const listProps = {
    attempt: attemptOf(query),
    onRetry: () => void query.refetch(),
    paging: listPaging,
    pageSize,
    busy: query.isPlaceholderData,
  };
  return { query, paging, listProps };
}

/**
 * A list's filters kept in the page's URL (`?search=&query=&sort=`), so views can be shared and
 * the back button walks through them. `sortFields` are the fields this kind sorts by; any other
 * `sort` in the URL means the server's default order. `extraParams` names the kind's own filters
 * kept there too (the unified list's `kinds`), read into `extra`; without them there is no `extra`.
 * Other parameters of the URL are dropped when the filters change.
 */
export function useUrlListFilters<Field extends string>(
  sortFields: readonly Field[],
  extraParams: readonly string[] = [],
): [ListFilters<Field>, (filters: ListFilters<Field>) => void] {
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const query = params.get('query') ?? '';
  const sortText = params.get('sort');
  // The extra filters as one string, so the filters keep their identity while they stay the same.
  const extraText = JSON.stringify(extraParams.map((name) => [name, params.get(name) ?? '']));
  const extraNames = JSON.stringify(extraParams);
  const filters = useMemo<ListFilters<Field>>(() => {
    const extra = JSON.parse(extraText) as [string, string][];
    return {
      search,
      query,
      sort: parseListSort(sortText, sortFields),
      ...(extra.length > 0 && { extra: Object.fromEntries(extra) }),
    };
  }, [search, query, sortText, sortFields, extraText]);
  const setFilters = useCallback(
    (next: ListFilters<Field>) => {
      const out = new URLSearchParams();
      if (next.search) out.set('search', next.search);
      if (next.query) out.set('query', next.query);
      const sort = listSortParam(next.sort);
      if (sort) out.set('sort', sort);
      for (const name of JSON.parse(extraNames) as string[]) {
        const value = next.extra?.[name];
        if (value) out.set(name, value);
      }
      setParams(out, { replace: true });
    },
    [setParams, extraNames],
  );
  return [filters, setFilters];
}
