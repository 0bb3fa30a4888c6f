import { describe, expect, it } from 'vitest';
import { claimValues, globMatch, mapRoles, traitsFromClaims } from './mapping.js';
import { safeRedirect } from './redirect.js';

describe('claim mapping', () => {
  it('matches globs whole, with * and ? only (no regex)', () => {
    expect(globMatch('dev*', 'developers')).toBe(true);
    expect(globMatch('dev*', 'a-developer')).toBe(false);
    expect(globMatch('team-?', 'team-a')).toBe(true);
    expect(globMatch('a.b', 'axb')).toBe(false);
    expect(globMatch('(x|y)', 'x')).toBe(false);
  });

  it('reads strings, lists and scalars as claim values', () => {
    const claims = { groups: ['a', 3, { x: 1 }], email: 'e@x', verified: true };
    expect(claimValues(claims, 'groups')).toEqual(['a', '3']);
    expect(claimValues(claims, 'email')).toEqual(['e@x']);
    expect(claimValues(claims, 'verified')).toEqual(['true']);
    expect(claimValues(claims, 'missing')).toEqual([]);
  });

  it('unions the roles of matching rules, sorted', () => {
    const rules = [
      { v: 'x', roles: ['b', 'a'] },
      { v: 'y', roles: ['c'] },
      { v: 'x', roles: ['a'] },
    ];
    expect(mapRoles(rules, (rule) => rule.v === 'x')).toEqual(['a', 'b']);
  });

  it('builds traits from claims, dropping unusable values, logins always present', () => {
    expect(traitsFromClaims([], {})).toEqual({ logins: [] });
    const traits = traitsFromClaims(
      [
        { claim: 'user', trait: 'logins' },
        { claim: 'alt', trait: 'logins' },
        { claim: 'groups', trait: 'kubeGroups' },
      ],
      { user: 'alice', alt: ['alice', 'root\n'], groups: ['', 'dev'] },
    );
    expect(traits).toEqual({ logins: ['alice'], kubeGroups: ['dev'] });
  });
});

describe('safeRedirect', () => {
  const base = 'https://proxy.test:3080';
  it('keeps same-origin paths and URLs', () => {
    expect(safeRedirect('/web/cluster/a/nodes?x=1', base)).toBe('/web/cluster/a/nodes?x=1');
    expect(safeRedirect(`${base}/web/users`, base)).toBe('/web/users');
  });

  it('sends everything else to /web', () => {
    for (const value of [
      undefined,
      '',
      'web',
      'https://evil.example/',
      '//evil.example',
      '/\\evil.example',
      '/%2F%2Fevil.example',
      '/%252F%252Fevil.example',
      '/javascript:alert(1)',
      '/web\n',
      'javascript:alert(1)',
    ]) {
      expect(safeRedirect(value, base), String(value)).toBe('/web');
    }
  });
});
