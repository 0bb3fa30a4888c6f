import { labelClause, parseLabelQuery } from '@postern/contracts';
import type { Label } from '../LabelChips';
import type { SortDir } from '../ResourceTable';

/**
 * What a resource list is narrowed and ordered by. Every list of resources (servers, apps,
 * databases, Kubernetes clusters, desktops) sends the same four things to the server: a free-text
 * `search`, a label `query`, a `sort` and the page's start key, so these rules are written once.
 */
export interface ListSort<Field extends string = string> {
  field: Field;
  dir: SortDir;
}

export interface ListFilters<Field extends string = string> {
  search: string;
  /** Label clauses `labels["k"] == "v"` joined by ` && `. */
  query: string;
  /** Undefined: the server's default order. */
  sort?: ListSort<Field>;
  /**
   * A kind's own filters beyond these three, by query parameter (the unified list's `kinds`):
   * sent as they are, kept in the URL when the page asks for them, and a change of one goes back
   * to page 1. An empty value is no filter. Lists without any leave this out.
   */
  extra?: Readonly<Record<string, string>>;
}

export const noListFilters: ListFilters = { search: '', query: '' };

/** The extra filters with a value, in a stable order. */
const extraEntries = (f: ListFilters): [string, string][] =>
  Object.entries(f.extra ?? {})
    .filter(([, value]) => value !== '')
    .sort(([a], [b]) => a.localeCompare(b));

/**
 * A search, a label query or an extra filter is in force (an empty page then means "no match",
 * not "none yet").
 */
export const isFiltered = (f: ListFilters) =>
  f.search !== '' || f.query !== '' || extraEntries(f).length > 0;

/** `field:asc` ↔ {field, dir}; a field the kind does not sort by means the server's default. */
export function parseListSort<Field extends string>(
  value: string | null | undefined,
  fields: readonly Field[],
): ListSort<Field> | undefined {
  const [field = '', dir = 'asc'] = (value ?? '').split(':');
  if (!(fields as readonly string[]).includes(field)) return undefined;
  return { field: field as Field, dir: dir.toLowerCase() === 'desc' ? 'desc' : 'asc' };
}

export const listSortParam = (sort: ListSort | undefined) =>
  sort ? `${sort.field}:${sort.dir}` : undefined;

/** Filters as one string: a change of it sends the list back to page 1. */
export const listFiltersKey = (f: ListFilters) => {
  const extra = extraEntries(f);
  const key: unknown[] = [f.search, f.query, listSortParam(f.sort)];
  return JSON.stringify(extra.length > 0 ? [...key, extra] : key);
};

/** One page request: the filters, the page's start key ('' for the first) and its size. */
export type ListPageRequest<F extends ListFilters = ListFilters> = F & {
  startKey: string;
  limit?: number;
};

/** How a list is asked for, beside its filters and page; every resource list takes these. */
export interface ListOptions {
  /** List as the user's `search_as_roles` would see it (to build a resource access request). */
  searchAsRoles?: boolean;
}

/** The parameters every list call has: an extra filter never takes one of these names. */
const commonParams = new Set(['limit', 'startKey', 'search', 'query', 'sort', 'searchAsRoles']);

/**
 * The query string of a list call (`limit`, `startKey`, `search`, `query`, `sort`, then the
 * kind's extra filters; empty left out), with `searchAsRoles=yes` when the options ask for it.
 */
export function listQueryString(
  request: ListPageRequest,
  defaultLimit: number,
  options: ListOptions = {},
): string {
  const params = new URLSearchParams({ limit: String(request.limit ?? defaultLimit) });
  if (request.startKey) params.set('startKey', request.startKey);
  if (request.search.trim()) params.set('search', request.search.trim());
  if (request.query.trim()) params.set('query', request.query.trim());
  const sort = listSortParam(request.sort);
  if (sort) params.set('sort', sort);
  for (const [name, value] of extraEntries(request)) {
    if (!commonParams.has(name) && value.trim()) params.set(name, value.trim());
  }
  if (options.searchAsRoles) params.set('searchAsRoles', 'yes');
  return params.toString();
}

/**
 * The labels of a query, for its filter chips. A query this console did not write (not plain
 * label clauses) shows as one chip holding the whole text, so it can still be removed.
 */
export function queryLabels(query: string): Label[] {
  const labels = parseLabelQuery(query);
  return labels instanceof Error ? [{ name: 'query', value: query }] : labels;
}

const isSame = (a: Label, b: Label) => a.name === b.name && a.value === b.value;

/** The query with one more label clause (unchanged when it is already there). */
export function addLabel(query: string, label: Label): string {
  const labels = parseLabelQuery(query);
  if (!(labels instanceof Error) && labels.some((l) => isSame(l, label))) return query;
  const clause = labelClause(label.name, label.value);
  return query.trim() ? `${query.trim()} && ${clause}` : clause;
}

/** The query without that label's clause. */
export function removeLabel(query: string, label: Label): string {
  const labels = parseLabelQuery(query);
  if (labels instanceof Error) return '';
  return labels
    .filter((l) => !isSame(l, label))
    .map((l) => labelClause(l.name, l.value))
    .join(' && ');
}
