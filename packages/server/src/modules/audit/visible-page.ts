import type { AuditEvent, AuditSearchResult } from './audit.types.js';

/**
 * Rows read per query: first the page itself (a caller who sees everything needs no more), then,
 * while hidden events thin it out, a few pages' worth at a time, within the store's cap.
 */
const batchSize = (limit: number, first: boolean) =>
  first ? limit : Math.min(5000, Math.max(limit * 4, 500));

/**
 * One page of the events `isVisible` lets the caller see: the access rules are applied BEFORE
 * paging, so a page is full unless the range is exhausted, no page is empty while visible events
 * follow, and nothing (a count, a short page) hints at how many events were hidden.
 *
 * The store pages by an opaque keyset cursor, so the page is read in batches from the caller's
 * cursor; when a batch holds more visible events than the page needs, the batch is read again
 * up to the last event taken, which yields the cursor right after it. A batch shorter than asked
 * ends the page too: a stored-order read (`readStored`) answers a cursor even at the end of the
 * log, where a search answers none.
 */
export async function visiblePage<Query extends { limit: number; startKey?: string }>(
  query: Query,
  fetch: (query: Query) => Promise<AuditSearchResult>,
  isVisible: (event: AuditEvent) => boolean,
): Promise<AuditSearchResult> {
  const taken: AuditEvent[] = [];
  let cursor = query.startKey;
  for (let first = true; ; first = false) {
    const from = cursor ? { startKey: cursor } : {};
    const asked = batchSize(query.limit, first);
    const batch = await fetch({ ...query, ...from, limit: asked });
    const needed = query.limit - taken.length;
    const positions = batch.events.flatMap((event, at) => (isVisible(event) ? [at] : []));
    if (positions.length > needed) {
      // Read again up to the last event this page takes: its cursor is where the next page starts.
      const upTo = positions[needed - 1]! + 1;
      const exact = await fetch({ ...query, ...from, limit: upTo });
      taken.push(...exact.events.filter(isVisible).slice(0, needed));
      return { events: taken, startKey: exact.startKey };
    }
    taken.push(...positions.map((at) => batch.events[at]!));
    if (!batch.startKey || batch.events.length < asked || taken.length === query.limit) {
      return { events: taken, startKey: batch.startKey };
    }
    cursor = batch.startKey;
  }
}
