import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';
import { b64 } from '../testing/identity.testkit.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

const publicMutations = [
  ['POST', '/v1/webapi/sessions/web', { user: 'a', pass: b64('x'), second_factor_token: '' }],
  ['POST', '/v1/webapi/mfa/login/begin', { passwordless: true }],
  ['POST', '/v1/webapi/mfa/login/finishsession', { user: 'a' }],
  ['PUT', '/v1/webapi/users/password/token', { token: 'x' }],
  ['POST', '/v1/webapi/mfa/token/x/registerchallenge', { deviceType: 'totp' }],
] as const;

describe('the double-submit CSRF check on public mutations', () => {
  it('is declared by every public route that changes state', () => {
    const publicWrites = app.routes.filter(
      (route) => route.access === 'public' && route.method !== 'GET',
    );
    expect(publicWrites.map((route) => `${route.method} ${route.url}`).sort()).toEqual(
      [
        'POST /v1/webapi/mfa/login/begin',
        'POST /v1/webapi/mfa/login/finishsession',
        'POST /v1/webapi/mfa/token/:tokenId/registerchallenge',
        'POST /v1/webapi/sessions/web',
        'PUT /v1/webapi/users/password/token',
        // The CLI's calls (docs/cli-login.md): no cookie is read or set, so there is no
        // ambient credential for another site to ride, and a CLI has no page to read a token from.
        'POST /v1/webapi/ssh/certs',
        'POST /v1/webapi/headless/login',
        'POST /v1/webapi/oidc/login/console',
        'POST /v1/webapi/github/login/console',
        'POST /v1/webapi/saml/login/console',
        'POST /v1/webapi/sso/console/exchange',
        // `postern db login`: signed with the login's certificate, no cookie read.
        'POST /v1/webapi/dbconnect/:name/login',
        // `postern kube login`: the same.
        'POST /v1/webapi/kubeconnect/:name/login',
        // `postern ssh|scp|db connect|proxy`'s per-session MFA certificates: the same.
        'POST /v1/webapi/mfa/session/certs',
        // `postern request create|review|assume` (docs/access-requests.md): the same.
        'POST /v1/webapi/accessrequests',
        'POST /v1/webapi/accessrequests/:requestId/reviews',
        'POST /v1/webapi/ssh/certs/assume',
        // A bot's join (a single-use token or a CI job's ID token in the body) and its renewal
        // (signed with its certificate): no cookie is read (docs/bots.md).
        'POST /v1/webapi/bots/join',
        'POST /v1/webapi/bots/renew',
        // The SAML ACS: the IdP's page posts it cross-site, so no header can come along. The
        // RelayState must equal the browser's state cookie and the signed assertion must answer
        // a request of ours, both once (docs/sso.md).
        'POST /v1/webapi/saml/acs/:name',
        // A usage event from the login page: it changes nothing, only a debug log line.
        'POST /v1/webapi/precapture',
      ].sort(),
    );
  });

  it('refuses a missing header, a missing cookie, or a header that differs', async () => {
    const other = 'f'.repeat(64);
    const variants: Record<string, Record<string, string>> = {
      'no header': { cookie: app.csrf.cookie },
      'no cookie': { 'x-csrf-token': app.csrf.token },
      'other header': { cookie: app.csrf.cookie, 'x-csrf-token': other },
      'malformed cookie': { cookie: '__Host-grv_csrf=abc', 'x-csrf-token': 'abc' },
    };
    for (const [method, url, payload] of publicMutations) {
      for (const [name, headers] of Object.entries(variants)) {
        const res = await app.server.inject({ method, url, headers, payload });
        expect(res.statusCode, `${method} ${url} with ${name}`).toBe(403);
        expect(res.json().error.message).toMatch(/CSRF token/);
      }
    }
  });

  it('lets the request through with the cookie and a matching header', async () => {
    const res = await app.server.inject({
      method: 'POST',
      url: '/v1/webapi/mfa/login/begin',
      headers: app.csrf.headers,
      payload: { passwordless: true },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().webauthn_challenge.publicKey.challenge).toMatch(/^[\w-]{43}$/);
  });
});

describe('rate limits on the sign-in calls', () => {
  it('answers 429 in the error shape past auth.login_rate_limit per minute', async () => {
    const limited = await createTestApp({ auth: { login_rate_limit: 3 } });
    try {
      const attempt = () =>
        limited.server.inject({
          method: 'POST',
          url: '/v1/webapi/sessions/web',
          headers: limited.csrf.headers,
          payload: { user: 'x', pass: b64('some password 123'), second_factor_token: '123456' },
        });
      for (let i = 0; i < 3; i++) expect((await attempt()).statusCode).toBe(403);
      const res = await attempt();
      expect(res.statusCode).toBe(429);
      expect(res.json().error.code).toBe('limit_exceeded');
      expect(res.json().message).toMatch(/too many requests: try again in/);
      // Other calls of the same address are not held up by it.
      expect((await limited.server.inject('/v1/webapi/ping')).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
