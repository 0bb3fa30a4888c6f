import { defaultNodeSort, parseLabelQuery, type NodeSortField } from '@postern/contracts';
import { badParameter } from '../../../errors.js';
import type { Labelled } from '../../../access-control/rbac/index.js';
import type { IndexedNode, NodeIndex } from './node-index.js';
import { isNodeId, type NodeResource } from './nodes.store.js';
import type { Position, SortedEntries } from './sorted-entries.js';

/** A node as a listing sees it: its record, whether it is up, and all its labels. */
export interface NodeRow {
  node: NodeResource;
  status: 'online' | 'offline';
  /** RFC 3339: last heartbeat, or for agentless hosts the last answer to the proxy's check; '' if never. */
  lastHeartbeat: string;
  /** Static and command labels together: what search, `query` and RBAC match against. */
  labels: Record<string, string>;
}

/** What may see a node and as whom: a RoleSet fits; null is the host's administrator (all, no logins). */
export interface NodeAccess {
  canAccess(kind: 'node', resource: Labelled): boolean;
  loginsFor(node: Labelled): string[];
}

export interface NodeListRow extends NodeRow {
  /** The caller's logins on this node. */
  logins: string[];
}

export interface NodePage {
  items: NodeListRow[];
  startKey: string;
  totalCount: number;
}

export interface ListCriteria {
  search: string;
  query: string;
  sort?: { field: NodeSortField; dir: 'asc' | 'desc' };
  startKey: string;
  limit: number;
}

export interface RowPage {
  items: NodeRow[];
  startKey: string;
  totalCount: number;
}

/** Static labels plus command labels' results; a command label wins a name clash (it is live). */
export function allLabels(node: NodeResource): Record<string, string> {
  const labels = { ...node.metadata.labels };
  for (const [name, label] of Object.entries(node.spec.cmdLabels)) labels[name] = label.result;
  return labels;
}

/** A record's status and last-seen time now: the inventory knows the heartbeat markers. */
export type RowOf = (entry: IndexedNode) => NodeRow;

/**
 * Whether a record matches every search word and every `labels["k"] == "v"` clause. A query
 * that does not parse is a 400, before anything is read.
 */
export function compileFilter(search: string, query: string): (entry: IndexedNode) => boolean {
  const clauses = parseLabelQuery(query);
  if (clauses instanceof Error) throw badParameter(clauses.message);
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  return (entry) =>
    clauses.every(({ name, value }) => entry.labels[name] === value) &&
    words.every((word) => entry.haystack.includes(word));
}

/**
 * One page in the requested order, walked from the start key through the index's order for the
 * sort field, taking the records `visible` admits until the page is full (and one more, to know
 * whether there is a next page). `startKey` is the last row's position on the previous page
 * (base64url JSON), so a page starts right after it even when rows came or went meanwhile.
 * Status changes with the clock, so it has no order of its own: the id order is walked once for
 * each status, in the order the direction asks.
 */
export function walkPage(
  index: NodeIndex,
  criteria: ListCriteria,
  visible: (entry: IndexedNode) => boolean,
  rowOf: RowOf,
): Omit<RowPage, 'totalCount'> {
  const { field, dir } = criteria.sort ?? defaultNodeSort;
  const after = criteria.startKey ? decodeStartKey(criteria.startKey, field, dir) : undefined;
  const items: NodeRow[] = [];
  let more = false;
  /** Takes a row; false once the page is full and this one only proved there is more. */
  const take = (row: NodeRow) => {
    if (items.length === criteria.limit) {
      more = true;
      return false;
    }
    items.push(row);
    return true;
  };
  if (field === 'status') {
    const order = index.order('id');
    const phases = dir === 'asc' ? statuses : [...statuses].reverse();
    for (const status of phases) {
      const from = after && compareText(status, after.value);
      if (from !== undefined && (dir === 'asc' ? from < 0 : from > 0)) continue;
      const start = from === 0 ? { value: '', id: after!.id } : undefined;
      const walked = walk(order, dir, start, (entry) => {
        if (!visible(entry)) return true;
        const row = rowOf(entry);
        return row.status !== status || take(row);
      });
      if (!walked) break;
    }
  } else {
    walk(index.order(field), dir, after, (entry) => !visible(entry) || take(rowOf(entry)));
  }
  const last = items.at(-1);
  return {
    items,
    startKey: more && last ? encodeStartKey(positionOf(last, field), field, dir) : '',
  };
}

const statuses = ['offline', 'online'] as const;

/** Visits the entries after `start` in the direction asked until `visit` says stop; false then. */
function walk(
  order: SortedEntries<IndexedNode>,
  dir: 'asc' | 'desc',
  start: Position | undefined,
  visit: (entry: IndexedNode) => boolean,
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

const positionOf = (row: NodeRow, field: NodeSortField): Position => ({
  value: field === 'status' ? row.status : row.node.spec[field].toLowerCase(),
  id: row.node.metadata.name,
});

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
interface StartKey {
  f: NodeSortField;
  d: 'asc' | 'desc';
  v: string;
  id: string;
}

function encodeStartKey(at: Position, field: NodeSortField, dir: 'asc' | 'desc'): string {
  const key: StartKey = { f: field, d: dir, v: at.value, id: at.id };
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The position a startKey names; anything we did not write, or for another order, is a 400. */
function decodeStartKey(text: string, field: NodeSortField, dir: 'asc' | 'desc'): Position {
  const invalid = () => badParameter('startKey: not a key this listing gave out');
  if (!/^[A-Za-z0-9_-]+$/.test(text)) throw invalid();
  let key: Partial<StartKey>;
  try {
    key = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<StartKey>;
  } catch {
    throw invalid();
  }
  if (typeof key !== 'object' || key === null) throw invalid();
  if (typeof key.v !== 'string' || typeof key.id !== 'string' || !isNodeId(key.id)) {
    throw invalid();
  }
  if (key.f !== field || key.d !== dir) {
    throw badParameter('startKey: it belongs to another sort order; start from the first page');
  }
  return { value: key.v, id: key.id };
}
