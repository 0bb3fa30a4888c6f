import { describe, expect, it } from 'vitest';
import { checkQuery, decodeStartKey, encodeStartKey, rangeBounds } from './audit.common.js';

describe('startKey', () => {
  it('round-trips a cursor, bigint-sized ids included', () => {
    const cursor = { timeMs: 1_767_225_600_123, id: '9007199254740993' };
    expect(decodeStartKey(encodeStartKey(cursor))).toEqual(cursor);
  });
});

describe('rangeBounds', () => {
  const from = new Date(1000);
  const to = new Date(2000);
  const key = (timeMs: number) => encodeStartKey({ timeMs, id: '7' });
  const bounds = (order: 'asc' | 'desc', startKey?: string) =>
    rangeBounds(checkQuery({ from, to, limit: 10, order, startKey }));

  // Exactly one condition per end of the range, so SQLite can start the index scan at the cursor.
  it('lets a cursor inside [from, to) replace the bound on its side', () => {
    expect(bounds('desc')).toEqual({ lower: 'from', upper: 'to' });
    expect(bounds('desc', key(1500))).toEqual({ lower: 'from', upper: 'cursor' });
    expect(bounds('asc', key(1500))).toEqual({ lower: 'cursor', upper: 'to' });
  });

  it('keeps the time bound when the cursor lies outside it (the cursor then excludes nothing)', () => {
    expect(bounds('desc', key(2000))).toEqual({ lower: 'from', upper: 'to' });
    expect(bounds('asc', key(999))).toEqual({ lower: 'from', upper: 'to' });
  });
});
