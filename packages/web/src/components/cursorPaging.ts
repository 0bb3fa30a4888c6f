import { useCallback, useState } from 'react';

/**
 * Cursor pagination for server-side lists (reference §1.5): the server pages forward only with an
 * opaque `startKey`, so the client keeps the start keys of the pages it has seen, `['', k1, k2…]`.
 * Next pushes the key the server returned; Prev pops back to the previous page's key. There are no
 * offsets or page numbers on the wire. Any change of the list's filters (search, sort, query) goes
 * back to page 1: pass them as `resetKey`.
 */
export interface CursorPaging {
  /** The start key of the current page ('' for the first). */
  startKey: string;
  /** 0 for the first page. */
  pageIndex: number;
  canPrev: boolean;
  /** Goes to the page starting at the key the server returned with this one. */
  next(nextKey: string): void;
  prev(): void;
  /** Back to page 1. */
  reset(): void;
}

interface State {
  resetKey: string;
  keys: string[];
}

const firstPage = [''];

/** The stack rules on their own, for tests and for callers that keep the state elsewhere. */
export const pagingStack = {
  next: (keys: string[], nextKey: string) => (nextKey ? [...keys, nextKey] : keys),
  prev: (keys: string[]) => (keys.length > 1 ? keys.slice(0, -1) : keys),
};

export function useCursorPaging(resetKey: string): CursorPaging {
  const [state, setState] = useState<State>({ resetKey, keys: firstPage });
  // New filters: page 1 at once, without a render on the old page's key.
  const keys = state.resetKey === resetKey ? state.keys : firstPage;
  const next = useCallback(
    (nextKey: string) => setState({ resetKey, keys: pagingStack.next(keys, nextKey) }),
    [keys, resetKey],
  );
  const prev = useCallback(
    () => setState({ resetKey, keys: pagingStack.prev(keys) }),
    [keys, resetKey],
  );
  const reset = useCallback(() => setState({ resetKey, keys: firstPage }), [resetKey]);
  return {
    startKey: keys.at(-1) ?? '',
    pageIndex: keys.length - 1,
    canPrev: keys.length > 1,
    next,
    prev,
    reset,
  };
}

/** "x–y of N" for a page: 1-based, inclusive; `0 of 0` when empty. */
export function pageRange(pageIndex: number, pageSize: number, shown: number, total: number) {
  const from = shown === 0 ? 0 : pageIndex * pageSize + 1;
  const to = shown === 0 ? 0 : pageIndex * pageSize + shown;
  return { from, to, total: Math.max(total, to) };
}
