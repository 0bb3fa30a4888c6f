import { describe, expect, it, vi } from 'vitest';
import {
  createNavigation,
  currentPageUri,
  loginUrl,
  safeRedirect,
  signInTarget,
} from './navigation';

describe('createNavigation', () => {
  it('goes to known routes and falls back to /web for unknown ones', () => {
    const navigate = vi.fn();
    const nav = createNavigation({ navigate });
    nav.push('/web/clusters?sort=name');
    nav.replace('/web/support');
    nav.push('/web/nowhere');
    nav.replace('https://evil.example/web/clusters');
    expect(navigate.mock.calls).toEqual([
      ['/web/clusters?sort=name', { replace: false }],
      ['/web/support', { replace: true }],
      ['/web', { replace: false }],
      ['/web', { replace: true }],
    ]);
  });
});

describe('loginUrl', () => {
  it('carries the current page and its search as redirect_uri', () => {
    expect(loginUrl()).toBe('/web/login');
    const uri = currentPageUri({ pathname: '/web/clusters', search: '?a=1&b=2' });
    expect(uri).toBe('/web/clusters?a=1&b=2');
    const url = loginUrl(uri);
    expect(url).toBe('/web/login?redirect_uri=%2Fweb%2Fclusters%3Fa%3D1%26b%3D2');
    expect(new URL(url, 'https://x').searchParams.get('redirect_uri')).toBe(uri);
  });
});

describe('safeRedirect', () => {
  it('keeps same-origin absolute paths', () => {
    expect(safeRedirect('/web/clusters')).toBe('/web/clusters');
    expect(safeRedirect('/web/cluster/one/nodes?q=a%20b#top')).toBe(
      '/web/cluster/one/nodes?q=a%20b#top',
    );
    expect(safeRedirect('/web/a%20b')).toBe('/web/a%20b');
  });

  it.each([
    ['protocol-relative', '//evil.example'],
    ['protocol-relative with path', '//evil.example/web'],
    ['backslash host', '/\\evil.example'],
    ['backslash anywhere', '/web\\..\\evil'],
    ['absolute URL', 'https://evil.example/web'],
    ['scheme-relative https', 'https:evil.example'],
    ['javascript', 'javascript:alert(1)'],
    ['relative path', 'web/clusters'],
    ['empty', ''],
    ['tab inside', '/\t/evil.example'],
    ['newline inside', '/web\n//evil'],
    ['NUL', '/web\u0000'],
    ['DEL', '/web\u007f'],
    ['encoded slashes', '%2F%2Fevil.example'],
    ['encoded second slash', '/%2Fevil.example'],
    ['encoded backslash', '/%5Cevil.example'],
    ['lowercase encoded backslash', '/%5cevil.example'],
    ['double-encoded slashes', '%252F%252Fevil.example'],
    ['encoded control char', '/web%0a//evil'],
    ['malformed escape', '/web/%E0%A4%A'],
  ])('rejects %s', (_label, raw) => {
    expect(safeRedirect(raw)).toBe('/web');
  });

  it('rejects non-strings', () => {
    expect(safeRedirect(undefined)).toBe('/web');
    expect(safeRedirect(null)).toBe('/web');
    expect(safeRedirect(42)).toBe('/web');
  });
});

describe('safeRedirect with our origin', () => {
  const origin = 'https://proxy.example.com';

  it('keeps a full URL on our origin, made relative', () => {
    expect(safeRedirect('https://proxy.example.com/web/users', origin)).toBe('/web/users');
    expect(safeRedirect('https://proxy.example.com/web/cluster/a/nodes?q=x#h', origin)).toBe(
      '/web/cluster/a/nodes?q=x#h',
    );
  });

  it.each([
    ['another host', 'https://evil.example/web/users'],
    ['another scheme', 'http://proxy.example.com/web/users'],
    ['another port', 'https://proxy.example.com:8443/web/users'],
    ['our host as user info', 'https://proxy.example.com@evil.example/web'],
    ['a path that turns protocol-relative', 'https://proxy.example.com//evil.example'],
    ['a tab the parser would drop', 'https://proxy.example.com/\t/evil.example'],
    ['a backslash', 'https://proxy.example.com/web\\..\\evil'],
    ['javascript', 'javascript:alert(1)'],
  ])('drops %s', (_label, raw) => {
    expect(safeRedirect(raw, origin)).toBe('/web');
  });
});

describe('signInTarget', () => {
  const origin = 'https://proxy.example.com';

  it('goes to a known page of ours, query included', () => {
    expect(signInTarget('/web/cluster/one/nodes?q=a', origin)).toBe('/web/cluster/one/nodes?q=a');
    expect(signInTarget('https://proxy.example.com/web/users', origin)).toBe('/web/users');
  });

  it('comes back to the app launcher, with or without its optional parts', () => {
    const launch = '/web/launch/grafana.example.com/root/grafana.example.com';
    expect(signInTarget(launch, origin)).toBe(launch);
    expect(signInTarget('/web/launch/grafana.example.com', origin)).toBe(
      '/web/launch/grafana.example.com',
    );
    const withArn = `${launch}/${encodeURIComponent('arn:aws:iam::1:role/ReadOnly')}`;
    expect(signInTarget(withArn, origin)).toBe(withArn);
  });

  it('lands on the root route for an unknown path or a foreign target', () => {
    expect(signInTarget('/web/no/such/page', origin)).toBe('/web');
    expect(signInTarget('/elsewhere', origin)).toBe('/web');
    expect(signInTarget('https://evil.example/web/users', origin)).toBe('/web');
    expect(signInTarget(null, origin)).toBe('/web');
  });
});
