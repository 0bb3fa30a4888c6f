import { describe, expect, it } from 'vitest';
import { formatDatePattern } from './dateFormat';

describe('formatDatePattern', () => {
  // Local time; the tests run with TZ=UTC.
  const evening = new Date(2024, 0, 9, 18, 5, 7);

  it.each([
    ['YYYY-MM-DD', '2024-01-09'],
    ['YYYY-MM-DD HH:mm:ss', '2024-01-09 18:05:07'],
    ['MMM dd, yyyy', 'Jan 09, 2024'],
    ['DD.MM.YYYY HH:mm', '09.01.2024 18:05'],
    ['MM/DD/YYYY', '01/09/2024'],
  ])('%s', (pattern, text) => {
    expect(formatDatePattern(evening, pattern)).toBe(text);
  });

  it('writes what is not a token as it is', () => {
    expect(formatDatePattern(evening, 'on DD at HH h')).toBe('on 09 at 18 h');
  });

  it('names every month', () => {
    expect(formatDatePattern(new Date(2024, 11, 31), 'MMM dd, yyyy')).toBe('Dec 31, 2024');
  });
});
