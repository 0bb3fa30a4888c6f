import { describe, expect, it } from 'vitest';
import { formatDuration } from './format';

describe('formatDuration', () => {
  it.each([
    [0, '00:00'],
    [999, '00:00'],
    [45_000, '00:45'],
    [125_999, '02:05'],
    [3_599_999, '59:59'],
    [3_600_000, '1:00:00'],
    [3_723_000, '1:02:03'],
    [26 * 3_600_000 + 61_000, '26:01:01'],
  ])('%i ms reads %s', (ms, text) => expect(formatDuration(ms)).toBe(text));

  it('reads nonsense (negative, NaN) as zero', () => {
    expect(formatDuration(-5_000)).toBe('00:00');
    expect(formatDuration(Number.NaN)).toBe('00:00');
  });
});
