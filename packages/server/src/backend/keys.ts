import type { ListOptions, PutItem } from './types.js';

const MAX_KEY_LENGTH = 4096;

/**
 * Whether a name is a UUID as `randomUUID` makes them (lower-case hex): kinds named by UUIDs
 * (nodes, locks, alerts) refuse anything else before it reaches the backend.
 */
export const isUuid = (name: string) =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(name);

/** A malformed key, prefix or limit: the caller's mistake, so it speaks the catalogue's 400 code. */
export class InvalidKeyError extends Error {
  override name = 'InvalidKeyError';
  readonly code = 'bad_parameter';
}
// Control characters would make keys unreadable in logs and the CLI.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** Throws InvalidKeyError unless `key` looks like `/kind/name` (no empty segments). */
export function assertValidKey(key: string): void {
  if (typeof key !== 'string' || !key.startsWith('/')) {
    throw new InvalidKeyError(`invalid key ${JSON.stringify(key)}: must start with "/"`);
  }
  if (key.length > MAX_KEY_LENGTH)
    throw new InvalidKeyError(`invalid key: longer than ${MAX_KEY_LENGTH} characters`);
  if (CONTROL_CHARS.test(key))
    throw new InvalidKeyError(`invalid key ${JSON.stringify(key)}: contains control characters`);
  if (key.slice(1).split('/').includes('')) {
    throw new InvalidKeyError(`invalid key ${JSON.stringify(key)}: empty path segment`);
  }
}

/** Prefixes may end with "/" (that is how callers scope to a kind), so only the start is checked. */
export function assertValidPrefix(prefix: string): void {
  if (typeof prefix !== 'string' || !prefix.startsWith('/')) {
    throw new InvalidKeyError(`invalid prefix ${JSON.stringify(prefix)}: must start with "/"`);
  }
  if (prefix.length > MAX_KEY_LENGTH)
    throw new InvalidKeyError(`invalid prefix: longer than ${MAX_KEY_LENGTH} characters`);
}

export function assertValidLimit(limit: number | undefined): void {
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1)) {
    throw new InvalidKeyError(`invalid limit ${String(limit)}: must be a positive integer`);
  }
}

/** Validates list options and returns the first key the scan may return. */
export function listStart(opts: ListOptions): string {
  assertValidPrefix(opts.prefix);
  assertValidLimit(opts.limit);
  const start = opts.startKey;
  return start !== undefined && compareKeys(start, opts.prefix) > 0 ? start : opts.prefix;
}

/**
 * The smallest string greater than every string that starts with `prefix`, so SQL can scan
 * a prefix as an index range `key >= prefix AND key < upper`. Increments the last code point,
 * which is correct in UTF-8 byte order (SQLite BINARY, PostgreSQL COLLATE "C").
 */
export function prefixUpperBound(prefix: string): string {
  const codePoints = Array.from(prefix);
  const last = codePoints.pop();
  if (last === undefined) throw new InvalidKeyError('empty prefix has no upper bound');
  let next = (last.codePointAt(0) ?? 0) + 1;
  if (next === 0xd800) next = 0xe000; // skip the surrogate range, which is not valid in UTF-8
  return codePoints.join('') + String.fromCodePoint(next);
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * Orders keys like the SQL backends do (UTF-8 byte order). JavaScript's `<` compares UTF-16
 * code units, which agrees except for characters outside the Basic Multilingual Plane.
 */
export function compareKeys(a: string, b: string): number {
  if (SURROGATE.test(a) || SURROGATE.test(b)) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  return a < b ? -1 : a > b ? 1 : 0;
}

export function matchesAnyPrefix(key: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => key.startsWith(prefix));
}

/** Checks a write's key, value and expiry before anything is stored. */
export function assertValidPutItem(item: PutItem): void {
  if (item === null || typeof item !== 'object')
    throw new InvalidKeyError('item must be an object');
  assertValidKey(item.key);
  if (typeof item.value !== 'string')
    throw new InvalidKeyError(`invalid value for ${item.key}: must be a string`);
  if (
    item.expires !== undefined &&
    !(item.expires instanceof Date && Number.isFinite(item.expires.getTime()))
  ) {
    throw new InvalidKeyError(`invalid expires for ${item.key}: must be a valid Date`);
  }
}
