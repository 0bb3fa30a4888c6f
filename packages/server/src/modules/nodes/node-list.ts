import { defaultNodeSort, parseLabelQuery, type NodeSortField } from '@postern/contracts';
import { badParameter } from '../../errors.js';
import type { Labelled } from '../rbac/index.js';
import { isNodeId, type NodeResource } from './nodes.store.js';

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

/** Rows matching every search word and every `labels["k"] == "v"` clause. */
export function filterRows(rows: NodeRow[], search: string, query: string): NodeRow[] {
  const clauses = parseLabelQuery(query);
  if (clauses instanceof Error) throw badParameter(clauses.message);
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  return rows.filter(
    (row) =>
      clauses.every(({ name, value }) => row.labels[name] === value) &&
      words.every((word) => haystack(row).some((text) => text.includes(word))),
  );
}

function haystack(row: NodeRow): string[] {
  const texts = [row.node.spec.hostname, row.node.spec.addr];
  for (const [name, value] of Object.entries(row.labels)) texts.push(name, value);
  return texts.map((text) => text.toLowerCase());
}

/** A row's position in one sort order: the sort value, then the id so that ties stay stable. */
interface Position {
  value: string;
  id: string;
}

const positionOf = (row: NodeRow, field: NodeSortField): Position => ({
  value: field === 'status' ? row.status : row.node.spec[field].toLowerCase(),
  id: row.node.metadata.name,
});

// Plain code-unit order: the same on every proxy and for every locale, which keyset paging needs.
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const comparePositions = (a: Position, b: Position) =>
  compareText(a.value, b.value) || compareText(a.id, b.id);

/**
 * One page in the requested order. `startKey` is the last row's position on the previous page
 * (base64url JSON), so a page starts right after it even when rows came or went meanwhile, and
 * deep pages cost no more than the first.
 */
export function pageRows(rows: NodeRow[], criteria: ListCriteria): RowPage {
  const { field, dir } = criteria.sort ?? defaultNodeSort;
  const sign = dir === 'desc' ? -1 : 1;
  const keyed = rows.map((row) => ({ row, at: positionOf(row, field) }));
  keyed.sort((a, b) => sign * comparePositions(a.at, b.at));
  const after = criteria.startKey ? decodeStartKey(criteria.startKey, field, dir) : undefined;
  const first = after ? keyed.findIndex(({ at }) => sign * comparePositions(at, after) > 0) : 0;
  const begin = first === -1 ? keyed.length : first;
  const page = keyed.slice(begin, begin + criteria.limit);
  const last = page.at(-1);
  const more = begin + page.length < keyed.length;
  return {
    items: page.map(({ row }) => row),
    startKey: more && last ? encodeStartKey(last.at, field, dir) : '',
    totalCount: rows.length,
  };
}

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
