import type { Item } from '../../backend/index.js';
import type { AccessKind } from '../../access-control/rbac/index.js';

/**
 * What the generic inventory needs to know about one kind of heartbeated resource (servers now;
 * apps, databases, Kubernetes clusters and desktops next): where its records and online markers
 * live in the backend, and how to read a record's name, labels, search text and sort values.
 * `F` names the fields a listing may sort by besides `status`, which every kind has.
 */
export interface ResourceKind<R, F extends string> {
  /** The RBAC kind whose label rules decide who sees a record (`node_labels` for 'node'). */
  readonly accessKind: AccessKind;
  /** Records live under `<recordsPrefix><id>`, for example `/nodes/`. */
  readonly recordsPrefix: string;
  /** Short-lived online markers under `<heartbeatsPrefix><id>`, for example `/node_heartbeats/`. */
  readonly heartbeatsPrefix: string;
  readonly parse: (item: Item) => R;
  readonly idOf: (record: R) => string;
  /** Whether a text can name a record: start keys naming anything else are refused. */
  readonly isId: (id: string) => boolean;
  /** Every label a record has: what search, label queries and RBAC match against. */
  readonly labelsOf: (record: R) => Record<string, string>;
  /** Texts besides the labels' names and values that search words match (names, addresses). */
  readonly searchTextsOf: (record: R) => string[];
  /** For each sort field, the value a record sorts by (lower-cased by the index). */
  readonly sortValues: Readonly<Record<F, (record: R) => string>>;
  /** RFC 3339: when the record stops being live; undefined for records that never expire. */
  readonly expiresOf: (record: R) => string | undefined;
  /** RFC 3339 time of the last heartbeat kept in the record itself, which outlives the marker. */
  readonly lastSeenOf?: (record: R) => string | undefined;
  /** How long one heartbeat keeps a record online (the marker's TTL). */
  readonly heartbeatTtlMs: number;
}

/** A record with what listing it needs worked out once, when the record arrives. */
export interface IndexedResource<R> {
  readonly id: string;
  readonly resource: R;
  /** What RBAC, search and label queries match against (see ResourceKind.labelsOf). */
  readonly labels: Record<string, string>;
  /**
   * Lower-cased search texts, label names and values, one a line: what search words match.
   * Words never hold a line break (search splits on white space), so none matches across two.
   */
  readonly haystack: string;
  /** Lower-cased value per sort field. */
  readonly sortValues: Readonly<Record<string, string>>;
  /** When the record stops being live (Infinity for records that never expire). */
  readonly expiresMs: number;
}

export function indexResource<R, F extends string>(
  kind: ResourceKind<R, F>,
  record: R,
): IndexedResource<R> {
  const labels = kind.labelsOf(record);
  const texts = kind.searchTextsOf(record);
  for (const [name, value] of Object.entries(labels)) texts.push(name, value);
  const sortValues: Record<string, string> = {};
  for (const [field, valueOf] of Object.entries<(record: R) => string>(kind.sortValues)) {
    sortValues[field] = valueOf(record).toLowerCase();
  }
  const expiresText = kind.expiresOf(record);
  const expires = expiresText ? Date.parse(expiresText) : Infinity;
  return {
    id: kind.idOf(record),
    resource: record,
    labels,
    haystack: texts.join('\n').toLowerCase(),
    sortValues,
    // An unreadable expiry is treated as passed, as `Date.parse(...) > now` would.
    expiresMs: Number.isNaN(expires) ? -Infinity : expires,
  };
}
