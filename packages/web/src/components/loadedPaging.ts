import { useEffect, useState } from 'react';

interface Options {
  pageSize: number;
  /** The server has more rows after the loaded ones. */
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
}

/**
 * Local pages over rows the server sends in large batches (audit and recordings: 5000 a request,
 * spec §9). A page the loaded rows do not fill asks the server for its next batch, so paging goes
 * on for as long as the server has rows. Server batches can come back short (rows the user may
 * not see are dropped), so this is not only at batch ends. Returns the rows of the current page
 * and the props of a Pager.
 */
export function useLoadedPaging<Row>(rows: Row[], options: Options) {
  const { pageSize, hasMore, loadingMore, onLoadMore } = options;
  const [pageIndex, setPageIndex] = useState(0);
  const first = pageIndex * pageSize;
  const shown = rows.slice(first, first + pageSize);
  const needsMore = shown.length < pageSize && hasMore && !loadingMore;
  useEffect(() => {
    if (needsMore) onLoadMore();
  }, [needsMore, onLoadMore]);

  const pager = {
    from: shown.length ? first + 1 : 0,
    to: first + shown.length,
    total: rows.length,
    canPrev: pageIndex > 0,
    canNext: first + pageSize < rows.length || hasMore,
    onPrev: () => setPageIndex(pageIndex - 1),
    onNext: () => setPageIndex(pageIndex + 1),
    busy: loadingMore,
  };
  return { shown, pager, toFirstPage: () => setPageIndex(0) };
}
