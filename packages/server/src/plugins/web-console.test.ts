import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const metaContent = (html: string, name: string) =>
  new RegExp(`<meta name="${name}" content="([^"]*)">`).exec(html)?.[1];

describe('serving the console', () => {
  it('redirects / to /web', async () => {
    const res = await app.server.inject('/');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/web');
  });

  it("sends /favicon.ico to the console build's icon, which it serves", async () => {
    const res = await app.server.inject('/favicon.ico');
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toBe('/web/favicon.svg');
    const icon = await app.server.inject(res.headers.location!);
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
  });

  it('serves the index for /web and any /web/* path, never cached', async () => {
    for (const url of [
      '/web',
      '/web/',
      '/web/clusters',
      '/web/cluster/x/nodes?q=1',
      '/web/no/such/page',
    ]) {
      const res = await app.server.inject(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body).toContain('<div id="app">');
    }
  });

  it('fills a CSRF token into the meta tag and a matching __Host- cookie, and keeps it on reload', async () => {
    const first = await app.server.inject('/web');
    const token = metaContent(first.body, 'grv_csrf_token');
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const cookie = first.cookies.find((c) => c.name === '__Host-grv_csrf');
    expect(cookie).toMatchObject({
      value: token,
      httpOnly: true,
      secure: true,
      path: '/',
      sameSite: 'Strict',
    });

    const again = await app.server.inject({
      url: '/web/clusters',
      cookies: { '__Host-grv_csrf': token! },
    });
    expect(metaContent(again.body, 'grv_csrf_token')).toBe(token);
  });

  it('replaces a malformed CSRF cookie instead of echoing it into the page', async () => {
    const res = await app.server.inject({
      url: '/web',
      cookies: { '__Host-grv_csrf': '"><script>x</script>' },
    });
    expect(res.body).not.toContain('<script>x</script>');
    expect(metaContent(res.body, 'grv_csrf_token')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('leaves the bearer empty without a session and fills it for a valid session cookie', async () => {
    const anonymous = await app.server.inject('/web');
    expect(metaContent(anonymous.body, 'grv_bearer_token')).toBe('');

    const headers = await app.signIn(['editor']);
    const res = await app.server.inject({ url: '/web', headers: { cookie: headers.cookie } });
    const bearer = JSON.parse(
      Buffer.from(metaContent(res.body, 'grv_bearer_token')!, 'base64').toString(),
    );
    expect(bearer).toMatchObject({
      type: 'bearer',
      token: headers.authorization.slice('Bearer '.length),
    });
    expect(bearer.expires_in).toBeGreaterThan(500);
    expect(Date.parse(bearer.sessionExpires)).toBeGreaterThan(Date.now());
  });

  it('hands a page loaded during a renewal the renewed session, and its cookie', async () => {
    const headers = await app.signIn(['editor']);
    const renewal = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/sessions/web/renew',
      headers,
      payload: {},
    });
    expect(renewal.statusCode).toBe(200);
    // The browser never saw the answer: its cookie still names the session renewed away.
    const res = await app.server.inject({ url: '/web', headers: { cookie: headers.cookie } });
    const bearer = JSON.parse(
      Buffer.from(metaContent(res.body, 'grv_bearer_token')!, 'base64').toString(),
    );
    expect(bearer.token).toBe(renewal.json().token);
    const cookie = res.cookies.find((each) => each.name === '__Host-session');
    expect(cookie?.value).toBe(
      renewal.cookies.find((each) => each.name === '__Host-session')?.value,
    );
  });

  it('serves config.js as a script that sets GRV_CONFIG, never cached', async () => {
    const res = await app.server.inject('/web/config.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/javascript/);
    expect(res.headers['cache-control']).toBe('no-store');
    const match = /^var GRV_CONFIG = (.*);\n$/s.exec(res.body);
    const config = JSON.parse(match![1]!);
    expect(config).toMatchObject({
      proxyCluster: 'test-cluster',
      auth: { localAuthEnabled: true },
    });
  });

  it('caches hashed assets immutably and 404s a missing one instead of serving the index', async () => {
    const asset = await app.server.inject('/web/assets/index-abc123.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await app.server.inject('/web/assets/nope-123.js');
    expect(missing.statusCode).toBe(404);
    expect(missing.body).not.toContain('<div id="app">');
  });

  it('serves top-level build files such as the favicon', async () => {
    const res = await app.server.inject('/web/favicon.svg');
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<svg');
  });

  it('sends the security headers on pages and API answers', async () => {
    for (const url of ['/web', '/v1/webapi/ping']) {
      const res = await app.server.inject(url);
      const csp = String(res.headers['content-security-policy']);
      for (const directive of [
        "script-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ]) {
        expect(csp, url).toContain(directive);
      }
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
    }
  });
});
