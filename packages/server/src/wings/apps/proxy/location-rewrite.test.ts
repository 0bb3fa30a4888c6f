import { describe, expect, it } from 'vitest';
import { rewriteLocation, type LocationRules } from './location-rewrite.js';

const rules = (upstream: string, more: Partial<LocationRules> = {}): LocationRules => ({
  upstream: new URL(upstream),
  basePath: new URL(upstream).pathname.replace(/\/+$/, ''),
  redirectHosts: [],
  publicHost: 'grafana.proxy.example.com',
  publicPort: '',
  ...more,
});

describe('rewriteLocation', () => {
  it('moves a redirect to the upstream origin onto the public host, keeping path, query and fragment', () => {
    expect(
      rewriteLocation('http://127.0.0.1:8080/login?next=%2Fd#top', rules('http://127.0.0.1:8080')),
    ).toBe('https://grafana.proxy.example.com/login?next=%2Fd#top');
  });

  it('names the public port unless it is 443', () => {
    const location = 'http://127.0.0.1:8080/x';
    expect(rewriteLocation(location, rules('http://127.0.0.1:8080', { publicPort: '3080' }))).toBe(
      'https://grafana.proxy.example.com:3080/x',
    );
    expect(rewriteLocation(location, rules('http://127.0.0.1:8080', { publicPort: '443' }))).toBe(
      'https://grafana.proxy.example.com/x',
    );
  });

  it('takes the upstream base path off, and only a whole segment of it', () => {
    const base = rules('https://grafana.internal:3000/base');
    expect(rewriteLocation('https://grafana.internal:3000/base/d/1?x=1', base)).toBe(
      'https://grafana.proxy.example.com/d/1?x=1',
    );
    expect(rewriteLocation('https://grafana.internal:3000/base', base)).toBe(
      'https://grafana.proxy.example.com/',
    );
    expect(rewriteLocation('https://grafana.internal:3000/basement', base)).toBe(
      'https://grafana.proxy.example.com/basement',
    );
  });

  it('matches the upstream by host and port: the default port counts, another port does not', () => {
    const upstream = rules('http://grafana.internal');
    expect(rewriteLocation('http://GRAFANA.internal:80/a', upstream)).toBe(
      'https://grafana.proxy.example.com/a',
    );
    expect(rewriteLocation('http://grafana.internal:81/a', upstream)).toBe(
      'http://grafana.internal:81/a',
    );
  });

  it('rewrites a redirect host on any scheme and port', () => {
    const withHosts = rules('http://127.0.0.1:8080', {
      redirectHosts: ['grafana.corp', 'Other.Corp:8443'],
    });
    expect(rewriteLocation('https://grafana.corp:9999/a', withHosts)).toBe(
      'https://grafana.proxy.example.com/a',
    );
    expect(rewriteLocation('http://grafana.corp/a', withHosts)).toBe(
      'https://grafana.proxy.example.com/a',
    );
    expect(rewriteLocation('https://other.corp:8443/b', withHosts)).toBe(
      'https://grafana.proxy.example.com/b',
    );
    expect(rewriteLocation('https://other.corp/b', withHosts)).toBe('https://other.corp/b');
  });

  it('rewrites a scheme-relative redirect to the upstream too', () => {
    expect(rewriteLocation('//127.0.0.1:8080/a', rules('http://127.0.0.1:8080'))).toBe(
      'https://grafana.proxy.example.com/a',
    );
  });

  it('leaves relative Locations, other hosts and other schemes alone', () => {
    const upstream = rules('http://127.0.0.1:8080/base');
    for (const location of [
      '/base/login',
      'login?x=1',
      '?page=2',
      'https://accounts.example.com/o/oauth2/auth?client_id=1',
      'mailto:admin@127.0.0.1',
      'http://[broken',
    ]) {
      expect(rewriteLocation(location, upstream)).toBe(location);
    }
  });

  it('sends redirects to the app, or to its public host, to a local listener when there is one', () => {
    const local = rules('http://127.0.0.1:8080/base', { clientOrigin: 'http://127.0.0.1:5000' });
    expect(rewriteLocation('http://127.0.0.1:8080/base/login?x=1#a', local)).toBe(
      'http://127.0.0.1:5000/login?x=1#a',
    );
    // Built from X-Forwarded-Host: the public host's path is the app's path already.
    expect(rewriteLocation('https://grafana.proxy.example.com/base/d', local)).toBe(
      'http://127.0.0.1:5000/base/d',
    );
    // The public host on another port is another site.
    const elsewhere = 'https://grafana.proxy.example.com:4443/d';
    expect(rewriteLocation(elsewhere, local)).toBe(elsewhere);
    expect(rewriteLocation('https://accounts.example.com/o', local)).toBe(
      'https://accounts.example.com/o',
    );
    // Without a listener, the public host's own URLs stay as they are.
    const browser = rules('http://127.0.0.1:8080/base');
    expect(rewriteLocation('https://grafana.proxy.example.com/base/d', browser)).toBe(
      'https://grafana.proxy.example.com/base/d',
    );
  });
});
