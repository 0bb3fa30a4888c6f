import type { CheckedQuery } from './audit.common.js';
import { rangeBounds } from './audit.common.js';
import { CHANGED } from './audit-text.sqlite.js';

/**
 * The SQL of a text search's rounds (audit-text-search.sqlite.ts), over a slice of the page
 * order given by its two ends. Exported so a test can check the planner's choices.
 */

export type Key = { time: number; id: number };
export type Bound = { time: number } | { key: Key; inclusive: boolean };
/** A slice of the page order: from `lower` (inclusive time) to `upper` (exclusive time). */
export interface KeyRange {
  lower: Bound;
  upper: Bound;
}

/**
 * Where the next scan round ends: the key `OFFSET` rows on, read from an index alone. With one
 * event type its index holds the rows in page order; with several, the planner would read all
 * their rows in the range and sort them, so the round counts rows of any type in the time
 * index instead (and the scan leaves out the other types): a round costs its rows, not the log.
 */
export function textScanStopSql(range: KeyRange, types: string[], order: 'asc' | 'desc') {
  const where = rangeSql(range);
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const oneType = types.length === 1 ? types : [];
  return {
    sql: `SELECT time_ms, id FROM audit_events WHERE ${where.sql}${typeSql('', oneType)}
      ORDER BY time_ms ${dir}, id ${dir} LIMIT 1 OFFSET ?`,
    params: [...where.params, ...oneType],
  };
}

/** The scan over one part of the range; binds the LIKE pattern and the limit last. */
export function textScanSql(range: KeyRange, types: string[], order: 'asc' | 'desc') {
  const where = rangeSql(range);
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  // Several types: `+` keeps the planner off the type index (see textScanStopSql).
  const typeFilter = typeSql(types.length > 1 ? '+' : '', types);
  return {
    sql: `SELECT id, time_ms, data FROM audit_events WHERE ${where.sql}${typeFilter}
      AND data LIKE ? ESCAPE '\\' ORDER BY time_ms ${dir}, id ${dir} LIMIT ?`,
    params: [...where.params, ...types],
  };
}

/**
 * The rows of the columns the text index found (audit-text-reader.sqlite.ts), given as a JSON
 * list of their first ids. CROSS JOIN keeps the list as the outer loop, each column then read
 * as a range of ids. Binds the list and the ids per column less one first, then `params`, then
 * the LIKE pattern and the limit.
 */
export function textIndexSql(range: KeyRange, types: string[], order: 'asc' | 'desc') {
  // `+` keeps the planner off the time and type indexes: it would walk one per column.
  const where = rangeSql(range, '+e.');
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  return {
    sql: `SELECT e.id, e.time_ms, e.data FROM json_each(?) c CROSS JOIN audit_events e
        ON e.id >= c.value AND e.id <= c.value + ?
      WHERE ${where.sql}${typeSql('+e.', types)} AND e.data LIKE ? ESCAPE '\\'
      ORDER BY e.time_ms ${dir}, e.id ${dir} LIMIT ?`,
    params: [...where.params, ...types],
  };
}

/** The rows changed by hand (audit_text_changed) that match; binds the pattern and limit last. */
export function changedRowsSql(range: KeyRange, types: string[], order: 'asc' | 'desc') {
  const where = rangeSql(range, '+e.');
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  return {
    sql: `SELECT e.id, e.time_ms, e.data FROM ${CHANGED} c CROSS JOIN audit_events e ON e.id = c.id
      WHERE ${where.sql}${typeSql('+e.', types)} AND e.data LIKE ? ESCAPE '\\'
      ORDER BY e.time_ms ${dir}, e.id ${dir} LIMIT ?`,
    params: [...where.params, ...types],
  };
}

/** `prefix` names the table (`e.`), with `+` before it to keep the planner off the indexes. */
function typeSql(prefix: string, types: string[]): string {
  return types.length ? ` AND ${prefix}event_type IN (${types.map(() => '?').join(', ')})` : '';
}

export function initialRange(q: CheckedQuery): KeyRange {
  const { lower, upper } = rangeBounds(q);
  const cursor = q.after && {
    key: { time: q.after.timeMs, id: Number(q.after.id) },
    inclusive: false,
  };
  return {
    lower: lower === 'cursor' && cursor ? cursor : { time: q.fromMs },
    upper: upper === 'cursor' && cursor ? cursor : { time: q.toMs },
  };
}

function rangeSql(range: KeyRange, table = ''): { sql: string; params: (number | bigint)[] } {
  const time = `${table}time_ms`;
  const row = `(${table}time_ms, ${table}id)`;
  const side = (bound: Bound, op: '>' | '<') =>
    'time' in bound
      ? { sql: `${time} ${op === '>' ? '>=' : '<'} ?`, params: [bound.time] }
      : {
          sql: `${row} ${op}${bound.inclusive ? '=' : ''} (?, ?)`,
          params: [bound.key.time, BigInt(bound.key.id)],
        };
  const lower = side(range.lower, '>');
  const upper = side(range.upper, '<');
  return { sql: `${lower.sql} AND ${upper.sql}`, params: [...lower.params, ...upper.params] };
}

export function timeSpan(range: KeyRange): { from: number; to: number } {
  const time = (bound: Bound) => ('time' in bound ? bound.time : bound.key.time);
  return { from: time(range.lower), to: time(range.upper) };
}
