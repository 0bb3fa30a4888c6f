import { parseLabelQuery } from '@postern/contracts';
import { badParameter } from '../../errors.js';
import type { ResourceIndex } from './resource-index.js';
import type { IndexedResource } from './resource-kind.js';
import type { Position, SortedEntries } from './sorted-entries.js';

export type Status = 'online' | 'offline';
export type SortDir = 'asc' | 'desc';

/** A listing's request: `F` is the kind's sort fields; `status` sorts every kind. */
export interface ResourceListCriteria<F extends string> {
  search: string;
  query: string;
  sort?: { field: F | 'status'; dir: SortDir };
  startKey: string;
  limit: number;
}

/**
 * Whether a record matches every search word and every `labels["k"] == "v"` clause. A query
 * that does not parse is a 400, before anything is read.
 */
export function compileFilter<R>(
  search: string,
  query: string,
): (entry: IndexedResource<R>) => boolean {
  const clauses = parseLabelQuery(query);
  if (clauses instanceof Error) throw badParameter(clauses.message);
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  return (entry) =>
    clauses.every(({ name, value }) => entry.labels[name] === value) &&
    words.every((word) => entry.haystack.includes(word));
}

export interface WalkOptions<R> {
  index: ResourceIndex<R>;
  /** Whether a text can be a record's id (start keys naming anything else are refused). */
  isId: (id: string) => boolean;
  /** The records the caller may see, live, that the filter admits. */
  visible: (entry: IndexedResource<R>) => boolean;
  /** A record's status now: the inventory knows the heartbeat markers. */
  statusOf: (entry: IndexedResource<R>) => Status;
}

/**
 * One page in the requested order, walked from the start key through the index's order for the
 * sort field, taking the records `visible` admits until the page is full (and one more, to know
 * whether there is a next page). `startKey` is the last entry's position on the previous page
 * (base64url JSON), so a page starts right after it even when records came or went meanwhile.
 * Status changes with the clock, so it has no order of its own: the id order is walked once for
 * each status, in the order the direction asks.
 */
export function walkPage<R, F extends string>(
  options: WalkOptions<R>,
  criteria: ResourceListCriteria<F>,
  defaultSort: { field: F | 'status'; dir: SortDir },
): { entries: IndexedResource<R>[]; startKey: string } {
  const { index, visible, statusOf } = options;
  const { field, dir } = criteria.sort ?? defaultSort;
  const after = criteria.startKey
    ? decodeStartKey(criteria.startKey, field, dir, options.isId)
    : undefined;
  const entries: IndexedResource<R>[] = [];
  let more = false;
  /** Takes an entry; false once the page is full and this one only proved there is more. */
  const take = (entry: IndexedResource<R>) => {
    if (entries.length === criteria.limit) {
      more = true;
      return false;
    }
    entries.push(entry);
    return true;
  };
  if (field === 'status') {
    const phases = dir === 'asc' ? statuses : [...statuses].reverse();
    for (const status of phases) {
      const from = after && compareText(status, after.value);
      if (from !== undefined && (dir === 'asc' ? from < 0 : from > 0)) continue;
      const start = from === 0 ? { value: '', id: after!.id } : undefined;
      const walked = walk(index.idOrder, dir, start, (entry) => {
        if (!visible(entry)) return true;
        return statusOf(entry) !== status || take(entry);
      });
      if (!walked) break;
    }
  } else {
    walk(index.order(field), dir, after, (entry) => !visible(entry) || take(entry));
  }
  const last = entries.at(-1);
  const position = (entry: IndexedResource<R>): Position => ({
    value: field === 'status' ? statusOf(entry) : (entry.sortValues[field] ?? ''),
    id: entry.id,
  });
  return { entries, startKey: more && last ? encodeStartKey(position(last), field, dir) : '' };
}

const statuses = ['offline', 'online'] as const;

/** Visits the entries after `start` in the direction asked until `visit` says stop; false then. */
function walk<T extends { id: string }>(
  order: SortedEntries<T>,
  dir: SortDir,
  start: Position | undefined,
  visit: (entry: T) => boolean,
): boolean {
  const entries = order.entries();
  if (dir === 'asc') {
    for (let i = start ? order.firstAfter(start) : 0; i < entries.length; i++) {
      if (!visit(entries[i]!)) return false;
    }
  } else {
    for (let i = (start ? order.firstAtOrAfter(start) : entries.length) - 1; i >= 0; i--) {
      if (!visit(entries[i]!)) return false;
    }
  }
  return true;
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

interface StartKey {
  f: string;
  d: SortDir;
  v: string;
  id: string;
}

function encodeStartKey(at: Position, field: string, dir: SortDir): string {
  const key: StartKey = { f: field, d: dir, v: at.value, id: at.id };
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The position a startKey names; anything we did not write, or for another order, is a 400. */
function decodeStartKey(
  text: string,
  field: string,
  dir: SortDir,
  isId: (id: string) => boolean,
): Position {
  const invalid = () => badParameter('startKey: not a key this listing gave out');
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let key: Partial<StartKey>;
  try {
    key = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<StartKey>;
  } catch {
    throw invalid();
  }
  if (typeof key !== 'object' || key === null) throw invalid();
  if (typeof key.v !== 'string' || typeof key.id !== 'string' || !isId(key.id)) {
    throw invalid();
  }
  if (key.f !== field || key.d !== dir) {
    throw badParameter('startKey: it belongs to another sort order; start from the first page');
  }
  return { value: key.v, id: key.id };
}
