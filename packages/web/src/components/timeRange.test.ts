import { describe, expect, it } from 'vitest';
import { initialTimeRange, rangeOf, toLocalInput, type TimeRangeFilter } from './timeRange';

describe('rangeOf', () => {
  const now = new Date(2026, 10, 20, 15, 30);
  const filter: TimeRangeFilter = { preset: 'today', customFrom: '', customTo: '' };

  it('starts Today at local midnight and the others 7 or 30 days back', () => {
    expect(rangeOf(filter, now)).toEqual({ from: new Date(2026, 10, 20), to: now });
    expect(rangeOf({ ...filter, preset: '30d' }, now)!.from).toEqual(new Date(2026, 9, 21, 15, 30));
  });

  it('takes a custom range only when it is complete and in order', () => {
    const custom = { ...filter, preset: 'custom' as const };
    const from = toLocalInput(new Date(2026, 0, 1, 8, 5));
    expect(from).toBe('2026-01-01T08:05');
    expect(rangeOf({ ...custom, customFrom: from, customTo: '2026-01-02T00:00' }, now)).toEqual({
      from: new Date(2026, 0, 1, 8, 5),
      to: new Date(2026, 0, 2),
    });
    expect(rangeOf({ ...custom, customFrom: from, customTo: '' }, now)).toBeUndefined();
    expect(rangeOf({ ...custom, customFrom: from, customTo: from }, now)).toBeUndefined();
  });
});

describe('initialTimeRange', () => {
  it('readies a custom range of the last day, in local time', () => {
    const now = new Date(2026, 10, 20, 15, 30);
    expect(initialTimeRange('7d', now)).toEqual({
      preset: '7d',
      customFrom: '2026-11-19T15:30',
      customTo: '2026-11-20T15:30',
    });
  });
});
