import { describe, expect, it } from 'vitest';
import { parsePositiveFlag, parseSinceFlag } from './flags.js';

const now = Date.parse('2026-11-29T12:00:00Z');

describe('CLI flags', () => {
  it('reads --since as days, a duration or an RFC 3339 time', () => {
    expect(parseSinceFlag('7d', now).toISOString()).toBe('2026-11-22T12:00:00.000Z');
    expect(parseSinceFlag('90m', now).toISOString()).toBe('2026-11-29T10:30:00.000Z');
    expect(parseSinceFlag('2026-11-01T08:00:00+01:00', now).toISOString()).toBe(
      '2026-11-01T07:00:00.000Z',
    );
  });

  it('names the flag and the text it refused', () => {
    expect(() => parseSinceFlag('soon', now)).toThrow(/--since/);
    expect(() => parseSinceFlag('2026-13-45Tnope', now)).toThrow(
      "--since: '2026-13-45Tnope' is not an RFC 3339 time",
    );
    expect(parsePositiveFlag('25', '--limit')).toBe(25);
    for (const bad of ['0', '-3', '2.5', 'many']) {
      expect(() => parsePositiveFlag(bad, '--limit')).toThrow(
        `--limit must be a whole number above 0, got '${bad}'`,
      );
    }
  });
});
