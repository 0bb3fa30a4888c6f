import { describe, expect, it } from 'vitest';
import { compileRegExp, compileValuePattern, PatternError } from './label-regexp.js';

describe('the linear-time regexp engine', () => {
  // Each pattern means the same in JavaScript for these inputs, so JS is the oracle.
  const patterns = [
    '^abc$',
    'abc',
    '^a.c$',
    '^(dev|test)$',
    '^env-(.*)$',
    '^[a-z]+-[0-9]{2,3}$',
    '^[^,]*$',
    '^\\d+\\.\\d+$',
    '^\\w+@\\w+\\.com$',
    '^\\s*x\\s*$',
    '^(a|ab)(c|bcd)(d*)$',
    '^a{3}$',
    '^a{2,}$',
    '^a??b$',
    '^(?:ab)+$',
    '^a|b$',
    '^$',
    '^[\\]a-]+$',
    '^[.]$',
  ];
  const inputs = [
    '',
    'abc',
    'axc',
    'dev',
    'test',
    'prod',
    'env-qa',
    'web-12',
    'web-1234',
    'a,b',
    'plain',
    '1.25',
    'bob@corp.com',
    '  x ',
    'abcd',
    'abcdd',
    'aaa',
    'aaaa',
    'b',
    'ab',
    'ababab',
    'xb',
    ']-a',
    '.',
    'é',
  ];
  it.each(patterns)('agrees with JavaScript on %s', (pattern) => {
    const ours = compileRegExp(pattern);
    const js = new RegExp(pattern.replace(/\(\?:/g, '(?:'));
    for (const input of inputs)
      expect(ours.test(input), `${pattern} on '${input}'`).toBe(js.test(input));
  });

  it('replaces every match, with Go-style group references', () => {
    expect(compileRegExp('^env-(.*)$').replaceAll('env-prod', '$1')).toBe('prod');
    expect(compileRegExp('^env-(?P<name>.*)$').replaceAll('env-qa', 'x-${name}-y')).toBe('x-qa-y');
    expect(compileRegExp('a').replaceAll('banana', 'o')).toBe('bonono');
    expect(compileRegExp('a*').replaceAll('baaac', '-')).toBe('-b-c-');
    expect(compileRegExp('(\\w+)@(\\w+)').replaceAll('al@x', '${2}:$1 $$')).toBe('x:al $');
    // As in Go, $1x names a group "1x", which does not exist: it is empty.
    expect(compileRegExp('(a)').replaceAll('a', '$1x')).toBe('');
    expect(compileRegExp('^(a)(b)?$').replaceAll('a', '[$2]')).toBe('[]');
  });

  it('reads value patterns as label selectors do: *, globs, ^regex$ and literals', () => {
    const cases: Array<[string, string, boolean]> = [
      ['*', '', true],
      ['*', 'anything', true],
      ['prod-*', 'prod-eu', true],
      ['prod-*', 'xprod-eu', false],
      ['*-eu-*', 'prod-eu-1', true],
      ['a.b', 'a.b', true],
      ['a.b', 'axb', false],
      ['^a.b$', 'axb', true],
      ['^(dev|qa)$', 'qa', true],
      ['^(dev|qa)$', 'qa2', false],
      ['dev', 'dev', true],
      ['dev', 'devx', false],
      ['(x)', '(x)', true],
    ];
    for (const [pattern, value, verdict] of cases) {
      expect(compileValuePattern(pattern).test(value), `${pattern} on ${value}`).toBe(verdict);
    }
  });

  it('refuses what it cannot run safely or does not know, with the reason', () => {
    const refused: Array<[string, RegExp]> = [
      ['^(a)\\1$', /backreferences/],
      ['^(?=a)a$', /look-around/],
      ['^(?i)a$', /flags/],
      ['\\bword\\b', /word boundaries/],
      ['^[[:alpha:]]$', /POSIX/],
      ['^\\p{L}$', /escape \\p/],
      ['^a**$', /repeated repetition/],
      ['^(*a)$', /nothing to repeat/],
      ['^(a$', /missing '\)'/],
      ['^a)$', /unmatched/],
      ['^[a$', /missing '\]'/],
      ['^[z-a]$', /out of order/],
      ['^a{1000}$', /above 100/],
      ['^((a{100}){100}){100}$', /too complex/],
      [`^${'a'.repeat(300)}$`, /longer than 256/],
    ];
    for (const [pattern, reason] of refused) {
      expect(() => compileRegExp(pattern), pattern).toThrow(PatternError);
      expect(() => compileRegExp(pattern), pattern).toThrow(reason);
    }
  });

  it('runs the classic catastrophic patterns in linear time', () => {
    // A backtracking engine takes minutes on the fourth with 1,000 characters.
    const evil = [
      '^(a+)+$',
      '^(a|a)*$',
      '^(a|aa)+$',
      '^.*a.*a.*a.*b$',
      '^(\\w+\\s?)*$',
      '^(.*)*!$',
    ];
    const input = `${'a'.repeat(20_000)}!`;
    for (const pattern of evil) {
      const re = compileRegExp(pattern);
      const started = performance.now();
      expect(re.test(input), pattern).toBe(pattern.endsWith('!$'));
      expect(performance.now() - started, pattern).toBeLessThan(2000);
    }
  });
});
