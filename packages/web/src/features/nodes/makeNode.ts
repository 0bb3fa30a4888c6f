import {
  labelClause,
  parseLabelQuery,
  type NodeJson,
  type NodeLabel,
  type NodeSortField,
  type NodeSubKind,
} from '@postern/contracts';
import { parseTimestamp } from '../../lib/format';

/** The console's model of a server (spec §3 Node). */
export interface ServerNode {
  id: string;
  clusterId: string;
  hostname: string;
  addr: string;
  tunnel: boolean;
  subKind: NodeSubKind;
  labels: NodeLabel[];
  sshLogins: string[];
  status: 'online' | 'offline';
  lastHeartbeat: Date | undefined;
  os: string;
}

export function makeNode(json: NodeJson): ServerNode {
  return {
    id: json.id,
    clusterId: json.siteId,
    hostname: json.hostname,
    addr: json.addr,
    tunnel: json.tunnel,
    subKind: json.subKind,
    labels: json.tags,
    sshLogins: json.sshLogins,
    status: json.status,
    lastHeartbeat: parseTimestamp(json.lastHeartbeat),
    os: json.os,
  };
}

/** One page of a server-side listing. */
export interface NodePage {
  nodes: ServerNode[];
  /** The next page's key; '' on the last page. */
  startKey: string;
  totalCount: number;
}

export interface NodeSort {
  field: NodeSortField;
  dir: 'asc' | 'desc';
}

/** What the list is narrowed and ordered by; all of it goes to the server. */
export interface NodeFilters {
  search: string;
  /** Label clauses `labels["k"] == "v"` joined by ` && `. */
  query: string;
  sort?: NodeSort;
}

export const noFilters: NodeFilters = { search: '', query: '' };

/** `hostname:asc` ↔ {field, dir}; anything else means the server's default order. */
export function parseSort(value: string | null | undefined): NodeSort | undefined {
  const [field, dir = 'asc'] = (value ?? '').split(':');
  if (field !== 'hostname' && field !== 'addr' && field !== 'status') return undefined;
  return { field, dir: dir.toLowerCase() === 'desc' ? 'desc' : 'asc' };
}

export const sortParam = (sort: NodeSort | undefined) =>
  sort ? `${sort.field}:${sort.dir}` : undefined;

/**
 * The labels of a query, for its filter chips. A query this console did not write (not plain
 * label clauses) shows as one chip holding the whole text, so it can still be removed.
 */
export function queryLabels(query: string): NodeLabel[] {
  const labels = parseLabelQuery(query);
  return labels instanceof Error ? [{ name: 'query', value: query }] : labels;
}

const isSame = (a: NodeLabel, b: NodeLabel) => a.name === b.name && a.value === b.value;

/** The query with one more label clause (unchanged when it is already there). */
export function addLabel(query: string, label: NodeLabel): string {
  const labels = parseLabelQuery(query);
  if (!(labels instanceof Error) && labels.some((l) => isSame(l, label))) return query;
  const clause = labelClause(label.name, label.value);
  return query.trim() ? `${query.trim()} && ${clause}` : clause;
}

/** The query without that label's clause. */
export function removeLabel(query: string, label: NodeLabel): string {
  const labels = parseLabelQuery(query);
  if (labels instanceof Error) return '';
  return labels
    .filter((l) => !isSame(l, label))
    .map((l) => labelClause(l.name, l.value))
    .join(' && ');
}

/** Filters as one string: a change of it sends the list back to page 1. */
export const filtersKey = (f: NodeFilters) =>
  JSON.stringify([f.search, f.query, sortParam(f.sort)]);
