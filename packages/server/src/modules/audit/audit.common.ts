import { randomUUID } from 'node:crypto';
import type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  AuditStoredQuery,
} from './audit.types.js';
import { AuditBadParameterError, InvalidStartKeyError } from './audit.types.js';

/** Shared by both stores: building events, checking queries and the startKey format. */

export const MAX_SEARCH_LIMIT = 5000;
const MAX_EVENT_TYPES = 200;
const MAX_SEARCH_TEXT = 200;

/** The user's text as a literal LIKE pattern: % and _ match themselves, not anything. */
function searchPattern(trimmed: string | undefined): string | undefined {
  return trimmed ? `%${trimmed.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : undefined;
}

/** What searchSessionEvents returns: the end of a terminal or desktop session. */
export const SESSION_END_EVENTS = ['session.end', 'windows.desktop.session.end'];

/** The indexed columns of one stored event, plus its full JSON. */
export interface AuditRow {
  timeMs: number;
  eventType: string;
  code: string;
  user: string | null;
  sid: string | null;
  json: string;
  /** Set on a replayed event (its uid): skipped when an event with that uid and time is stored. */
  replayOf?: string;
}

/** Completes an input into the stored event, and the row that indexes it. */
export function prepareEvent(
  input: AuditEventInput,
  clusterName: string,
): { event: AuditEvent; row: AuditRow } {
  if (input === null || typeof input !== 'object')
    throw new AuditBadParameterError('audit event must be an object');
  const { event, code, time, uid, user, sid, cluster_name, ...fields } = input;
  requireText('event', event);
  requireText('code', code);
  if (user !== undefined) requireText('user', user);
  if (sid !== undefined) requireText('sid', sid);
  if (uid !== undefined) requireText('uid', uid);
  if (time !== undefined && !isValidDate(time))
    throw new AuditBadParameterError('audit event time must be a valid Date');
  const at = time ?? new Date();
  const full = {
    event,
    code,
    time: at.toISOString(),
    uid: (uid as string | undefined) ?? randomUUID(),
    ...(user === undefined ? {} : { user }),
    ...(sid === undefined ? {} : { sid }),
    cluster_name: typeof cluster_name === 'string' ? cluster_name : clusterName,
    ...fields,
  };
  let json: string;
  try {
    json = JSON.stringify(full);
  } catch (error) {
    throw new AuditBadParameterError(
      `audit event ${event} is not serializable: ${(error as Error).message}`,
    );
  }
  // Return exactly what search will return later (nested Dates become strings, and so on).
  const stored = JSON.parse(json) as AuditEvent;
  return {
    event: stored,
    row: {
      timeMs: at.getTime(),
      eventType: event,
      code,
      user: user ?? null,
      sid: sid ?? null,
      json,
    },
  };
}

/** A stored event prepared again to be replayed (ReplayableAuditStore.replay). */
export function prepareReplay(
  event: AuditEvent,
  clusterName: string,
): { event: AuditEvent; row: AuditRow } {
  const prepared = prepareEvent({ ...event, time: new Date(event.time) }, clusterName);
  return { event: prepared.event, row: { ...prepared.row, replayOf: prepared.event.uid } };
}

/**
 * The input with its `uid` and `time` fixed before a write whose answer may be lost, so that the
 * same event, spooled and replayed, is known as the one already stored.
 */
export function stampEvent(input: AuditEventInput): AuditEventInput {
  // Bad input is left for prepareEvent to refuse with its own words.
  if (input === null || typeof input !== 'object') return input;
  return { ...input, uid: input.uid ?? randomUUID(), time: input.time ?? new Date() };
}

/** Position of a row in the (time, id) order; ids are decimal strings so bigint ids fit. */
export interface Cursor {
  timeMs: number;
  id: string;
}

export interface CheckedQuery {
  fromMs: number;
  toMs: number;
  eventTypes: string[] | undefined;
  limit: number;
  order: 'asc' | 'desc';
  after: Cursor | undefined;
  /** A LIKE pattern (`%text%`, wildcards escaped with `\`), or undefined for no text filter. */
  searchPattern: string | undefined;
  /** The text the pattern was made of (trimmed), for a text index; set with searchPattern. */
  searchText: string | undefined;
}

export function checkQuery(q: AuditSearchQuery): CheckedQuery {
  if (q === null || typeof q !== 'object')
    throw new AuditBadParameterError('search query must be an object');
  if (q.search !== undefined && (typeof q.search !== 'string' || q.search.length > MAX_SEARCH_TEXT))
    throw new AuditBadParameterError(
      `search must be text of at most ${MAX_SEARCH_TEXT} characters`,
    );
  if (!isValidDate(q.from)) throw new AuditBadParameterError('from must be a valid date');
  if (!isValidDate(q.to)) throw new AuditBadParameterError('to must be a valid date');
  if (q.from.getTime() > q.to.getTime())
    throw new AuditBadParameterError('from must not be after to');
  if (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > MAX_SEARCH_LIMIT) {
    throw new AuditBadParameterError(
      `limit must be an integer from 1 to ${MAX_SEARCH_LIMIT}, got ${String(q.limit)}`,
    );
  }
  const order = q.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc')
    throw new AuditBadParameterError("order must be 'asc' or 'desc'");
  const types = q.eventTypes;
  if (types !== undefined) {
    if (!Array.isArray(types) || types.some((type) => typeof type !== 'string' || type === '')) {
      throw new AuditBadParameterError('eventTypes must be a list of non-empty strings');
    }
    if (types.length > MAX_EVENT_TYPES)
      throw new AuditBadParameterError(`at most ${MAX_EVENT_TYPES} event types`);
  }
  return {
    fromMs: q.from.getTime(),
    toMs: q.to.getTime(),
    eventTypes: types && types.length > 0 ? [...new Set(types)] : undefined,
    limit: q.limit,
    order,
    after: q.startKey ? decodeStartKey(q.startKey) : undefined,
    searchPattern: searchPattern(q.search?.trim()),
    searchText: q.search?.trim() || undefined,
  };
}

/** A stored-order read, checked: where it goes on from (a row id), or the time to start at. */
export interface CheckedStoredQuery {
  afterId: string | undefined;
  fromMs: number | undefined;
  eventTypes: string[] | undefined;
  limit: number;
}

export function checkStoredQuery(q: AuditStoredQuery): CheckedStoredQuery {
  if (q.from !== undefined && !isValidDate(q.from))
    throw new AuditBadParameterError('from must be a valid date');
  const { eventTypes, limit } = checkQuery({
    from: new Date(0),
    to: new Date(0),
    limit: q.limit,
    ...(q.eventTypes ? { eventTypes: q.eventTypes } : {}),
  });
  return {
    afterId: q.startKey ? decodeStartKey(q.startKey).id : undefined,
    fromMs: q.startKey ? undefined : q.from?.getTime(),
    eventTypes,
    limit,
  };
}

/**
 * The answer of a stored-order read: its rows (at most `limit`, by id), and the position after the
 * last one, or the position it started from when none was stored since.
 */
export function storedPage(
  rows: readonly { id: string; timeMs: number; data: AuditEvent }[],
  startKey: string | undefined,
): { events: AuditEvent[]; startKey: string } {
  const last = rows.at(-1);
  return {
    events: rows.map((row) => row.data),
    startKey: last ? encodeStartKey({ timeMs: last.timeMs, id: last.id }) : (startKey ?? ''),
  };
}

/**
 * Which condition bounds each end of the scanned (time, id) range. A cursor inside [from, to)
 * replaces the bound on its side instead of being added to it: with both, SQLite ranges on
 * the plain time bound and walks every row before the cursor (each page gets slower).
 */
export function rangeBounds(q: CheckedQuery): { lower: 'from' | 'cursor'; upper: 'to' | 'cursor' } {
  const after = q.after;
  if (!after) return { lower: 'from', upper: 'to' };
  if (q.order === 'asc')
    return { lower: after.timeMs >= q.fromMs ? 'cursor' : 'from', upper: 'to' };
  return { lower: 'from', upper: after.timeMs < q.toMs ? 'cursor' : 'to' };
}

/** The startKey is opaque to callers: base64url of `{"t": timeMs, "id": "123"}`. */
export function encodeStartKey(cursor: Cursor): string {
  return Buffer.from(JSON.stringify({ t: cursor.timeMs, id: cursor.id })).toString('base64url');
}

export function decodeStartKey(key: string): Cursor {
  if (typeof key !== 'string' || key.length > 512 || !/^[A-Za-z0-9_-]+$/.test(key))
    throw new InvalidStartKeyError();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(key, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidStartKeyError();
  }
  const { t, id } = (parsed ?? {}) as { t?: unknown; id?: unknown };
  if (!Number.isSafeInteger(t) || typeof id !== 'string' || !/^[1-9][0-9]{0,18}$/.test(id)) {
    throw new InvalidStartKeyError();
  }
  return { timeMs: t as number, id };
}

function requireText(field: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || value === '')
    throw new AuditBadParameterError(`audit event ${field} must be a non-empty string`);
}

function isValidDate(value: unknown): value is Date {
  return value instanceof Date && Number.isFinite(value.getTime());
}
