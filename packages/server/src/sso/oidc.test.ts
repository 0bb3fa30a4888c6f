import { apiPaths, ssoErrorRoutes } from '@postern/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';
import { TestBrowser } from '../testing/browser.testkit.js';
import { startTestOidcProvider, type TestOidcProvider } from '../testing/oidc-provider.testkit.js';
import { sessionCookieName } from '../http/request-identity.js';
import { hostActor } from '../access-control/access/actor.js';
import { ssoStateCookieName } from './sso-http.js';

let app: TestApp;
let idp: TestOidcProvider;
const proxyHost = 'proxy.test:3080';
const callbackUrl = `https://${proxyHost}/v1/webapi/oidc/callback`;

beforeAll(async () => {
  app = await createTestApp();
  idp = await startTestOidcProvider({
    redirectUris: [callbackUrl],
    accounts: {
      alice: {
        password: 'alice-pw',
        claims: {
          email: 'alice@example.com',
          preferred_username: 'alice',
          groups: ['developers', 'staff'],
        },
      },
      mallory: { password: 'mallory-pw', claims: { email: 'mallory@elsewhere.test', groups: [] } },
      carol: { password: 'carol-pw', claims: { email: 'carol@example.com', groups: [] } },
    },
  });
  await app.services.connectors.create(
    'oidc',
    `kind: oidc
version: v3
metadata:
  name: idp
spec:
  display: Test IdP
  issuer_url: ${idp.issuer}
  client_id: ${idp.clientId}
  client_secret: ${idp.clientSecret}
  scope: [email, profile, groups]
  claims_to_roles:
  - claim: groups
    value: dev*
    roles: [access]
  - claim: email
    value: '*@example.com'
    roles: [auditor]
  - claim: groups
    value: admins
    roles: [editor]
  claims_to_traits:
  - claim: preferred_username
    trait: logins
  - claim: groups
    trait: kubernetes_groups
`,
    hostActor('root'),
  );
});
afterAll(async () => {
  await app.close();
  await idp.close();
});

let browser: TestBrowser;
beforeEach(() => {
  browser = new TestBrowser(app);
});

const atCallback = (url: string) => url.startsWith(callbackUrl);
const loginUrl = (redirect: string, connector = 'idp') =>
  `/v1/webapi/oidc/login/web?connector_id=${connector}&redirect_url=${encodeURIComponent(redirect)}`;

/** Starts a sign-in and passes the provider's login form; stops before the proxy's callback. */
async function signInAtProvider(account: string, password: string, redirect = '/web/cluster/x') {
  const form = await browser.go(loginUrl(redirect));
  expect(form.url.startsWith(`${idp.issuer}/interaction/`), form.url).toBe(true);
  expect(browser.cookie(proxyHost, ssoStateCookieName)).toBeTruthy();
  const back = await browser.submit(`${form.url}/login`, { login: account, password }, atCallback);
  expect(back.url.startsWith(callbackUrl), back.url).toBe(true);
  return back.url;
}

const auditOf = async (code: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 864e5), limit: 1000 })
  ).events.filter((event) => event.code === code);

const failureReason = (url: string) => new URL(url).searchParams.get('details') ?? '';

describe('OIDC sign-in against a real OpenID provider', () => {
  it('redirects to the provider with state, nonce and a PKCE S256 challenge', async () => {
    const first = await browser.go(loginUrl('/web'), (url) => url.startsWith(idp.issuer));
    const authorize = new URL(first.url);
    expect(authorize.pathname).toBe('/auth');
    for (const param of ['state', 'nonce', 'code_challenge']) {
      expect(authorize.searchParams.get(param)).toMatch(/^[\w-]{43}$/);
    }
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('redirect_uri')).toBe(callbackUrl);
    expect(authorize.searchParams.get('scope')).toBe('openid email profile groups');
    expect(browser.cookie(proxyHost, ssoStateCookieName)).toBe(authorize.searchParams.get('state'));
  });

  it('signs in: maps claims to roles and traits, makes an SSO user, sets the session cookie', async () => {
    const callback = await signInAtProvider('alice', 'alice-pw');
    const landing = await browser.go(callback);
    // The browser got a page that navigates on to the same-origin redirect.
    expect(landing.status).toBe(200);
    expect(landing.body).toContain(`content="0;URL='/web/cluster/x'"`);
    const sessionId = browser.cookie(proxyHost, sessionCookieName);
    expect(sessionId).toMatch(/^[0-9a-f]{64}$/);
    expect(browser.cookie(proxyHost, ssoStateCookieName)).toBeUndefined();

    const session = await app.services.sessions.fromCookie(sessionId);
    expect(session).toMatchObject({ user: 'alice@example.com', roles: ['access', 'auditor'] });
    const user = await app.services.users.store.get('alice@example.com');
    expect(user?.user.spec).toMatchObject({
      authType: 'sso',
      roles: ['access', 'auditor'],
      traits: { logins: ['alice'], kubernetes_groups: ['developers', 'staff'] },
      connector: { kind: 'oidc', name: 'idp' },
      expires: session?.expires,
    });

    const context = await app.server.inject({
      method: 'GET',
      url: apiPaths.context('test-cluster'),
      headers: {
        cookie: `${sessionCookieName}=${sessionId}`,
        authorization: `Bearer ${session?.bearerToken}`,
      },
    });
    expect(context.statusCode).toBe(200);
    expect(context.json()).toMatchObject({ userName: 'alice@example.com', authType: 'sso' });
    expect(await auditOf('T1001I')).toContainEqual(
      expect.objectContaining({ user: 'alice@example.com', method: 'oidc', connector: 'idp' }),
    );
  });

  it('answers the callback with a page that navigates to the redirect, not a 302', async () => {
    const callback = await signInAtProvider('alice', 'alice-pw', '/web/cluster/x/nodes?q=1');
    const res = await app.server.inject({
      method: 'GET',
      url: new URL(callback).pathname + new URL(callback).search,
      headers: { cookie: `${ssoStateCookieName}=${browser.cookie(proxyHost, ssoStateCookieName)}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain(`content="0;URL='/web/cluster/x/nodes?q=1'"`);
    expect(String(res.headers['set-cookie'])).toContain(`${sessionCookieName}=`);
  });

  it('lands on /web when the redirect is not a same-origin path', async () => {
    for (const redirect of ['https://evil.example/', '//evil.example/x', '/%2F%2Fevil.example']) {
      browser = new TestBrowser(app);
      const callback = await signInAtProvider('alice', 'alice-pw', redirect);
      const res = await app.server.inject({
        method: 'GET',
        url: new URL(callback).pathname + new URL(callback).search,
        headers: {
          cookie: `${ssoStateCookieName}=${browser.cookie(proxyHost, ssoStateCookieName)}`,
        },
      });
      expect(res.body, redirect).toContain(`content="0;URL='/web'"`);
    }
  });

  it('refuses a person mapped to no role, with a clear reason on the error page', async () => {
    const callback = await signInAtProvider('mallory', 'mallory-pw');
    const page = await browser.go(callback, (url) => url.includes('/web/msg/'));
    expect(new URL(page.url).pathname, page.body).toBe(ssoErrorRoutes.unauthorized);
    expect(failureReason(page.url)).toContain('not mapped to any role');
    expect(browser.cookie(proxyHost, sessionCookieName)).toBeUndefined();
    expect(await app.services.users.store.get('mallory@elsewhere.test')).toBeNull();
    expect(await auditOf('T1001W')).toContainEqual(
      expect.objectContaining({
        method: 'oidc',
        connector: 'idp',
        success: false,
        error: expect.stringContaining('not mapped'),
      }),
    );
  });

  it('never takes over a local user of the same name', async () => {
    await app.services.users.create({ name: 'carol@example.com', roles: ['editor'] }, 'root');
    const callback = await signInAtProvider('carol', 'carol-pw');
    const page = await browser.go(callback, (url) => url.includes('/web/msg/'));
    expect(new URL(page.url).pathname).toBe(ssoErrorRoutes.unauthorized);
    expect(failureReason(page.url)).toContain('a local user named carol@example.com exists');
    const local = await app.services.users.store.get('carol@example.com');
    expect(local?.user.spec).toMatchObject({ authType: 'local', roles: ['editor'] });
    expect(browser.cookie(proxyHost, sessionCookieName)).toBeUndefined();
  });

  it('refuses a tampered state, and a state the browser did not start', async () => {
    const callback = new URL(await signInAtProvider('alice', 'alice-pw'));
    const state = callback.searchParams.get('state') ?? '';
    callback.searchParams.set('state', `${state.slice(0, -1)}${state.endsWith('A') ? 'B' : 'A'}`);
    const tampered = await browser.go(callback.toString(), (url) => url.includes('/web/msg/'));
    expect(failureReason(tampered.url)).toContain('does not match this browser');

    browser = new TestBrowser(app);
    const other = await signInAtProvider('alice', 'alice-pw');
    browser.jar.get(proxyHost)?.delete(ssoStateCookieName);
    const foreign = await browser.go(other, (url) => url.includes('/web/msg/'));
    expect(failureReason(foreign.url)).toContain('does not match this browser');
    expect(browser.cookie(proxyHost, sessionCookieName)).toBeUndefined();
  });

  it('refuses a state used twice', async () => {
    const callback = await signInAtProvider('alice', 'alice-pw');
    const state = new URL(callback).searchParams.get('state') ?? '';
    await browser.go(callback, (url) => !url.startsWith(callbackUrl));
    expect(browser.cookie(proxyHost, sessionCookieName)).toBeTruthy();

    const replay = new TestBrowser(app);
    replay.setCookie(proxyHost, ssoStateCookieName, state);
    const page = await replay.go(callback, (url) => url.includes('/web/msg/'));
    expect(failureReason(page.url)).toContain('expired or was already used');
    expect(replay.cookie(proxyHost, sessionCookieName)).toBeUndefined();
  });

  it('refuses an expired state', async () => {
    const callback = await signInAtProvider('alice', 'alice-pw');
    app.clock.advance(11 * 60 * 1000);
    try {
      const page = await browser.go(callback, (url) => url.includes('/web/msg/'));
      expect(failureReason(page.url)).toContain('expired or was already used');
    } finally {
      app.clock.advance(-11 * 60 * 1000);
    }
  });

  it('sends an unknown connector to the login error page without leaving', async () => {
    const page = await browser.go(loginUrl('/web', 'nope'), (url) => url.includes('/web/msg/'));
    expect(new URL(page.url).pathname).toBe(ssoErrorRoutes.login);
    expect(failureReason(page.url)).toBe('there is no OIDC connector named "nope"');
  });

  it('reports a provider error without its internals', async () => {
    const callback = new URL(await signInAtProvider('alice', 'alice-pw'));
    callback.searchParams.set('code', 'not-a-real-code');
    const page = await browser.go(callback.toString(), (url) => url.includes('/web/msg/'));
    expect(new URL(page.url).pathname).toBe(ssoErrorRoutes.callback);
    expect(failureReason(page.url)).toBe('the sign-in with the identity provider failed');
    expect(await auditOf('T1001W')).toContainEqual(
      expect.objectContaining({
        connector: 'idp',
        error: 'the sign-in with the identity provider failed',
      }),
    );
  });
});

describe('OIDC with the claims at the UserInfo endpoint only', () => {
  let userinfoIdp: TestOidcProvider;
  beforeAll(async () => {
    userinfoIdp = await startTestOidcProvider({
      redirectUris: [callbackUrl],
      claimsIn: 'userinfo',
      accounts: {
        dave: {
          password: 'dave-pw',
          claims: { email: 'dave@example.com', preferred_username: 'dave', groups: ['devops'] },
        },
      },
    });
    await app.services.connectors.create(
      'oidc',
      `kind: oidc
version: v3
metadata:
  name: idp-userinfo
spec:
  issuer_url: ${userinfoIdp.issuer}
  client_id: ${userinfoIdp.clientId}
  client_secret: ${userinfoIdp.clientSecret}
  scope: [email, profile, groups]
  claims_to_roles:
  - claim: groups
    value: dev*
    roles: [access]
  claims_to_traits:
  - claim: preferred_username
    trait: logins
`,
      hostActor('root'),
    );
  });
  afterAll(() => userinfoIdp.close());

  it('reads the name, groups and traits from UserInfo when the ID token has only sub', async () => {
    const form = await browser.go(loginUrl('/web', 'idp-userinfo'));
    expect(form.url.startsWith(`${userinfoIdp.issuer}/interaction/`), form.url).toBe(true);
    const fields = { login: 'dave', password: 'dave-pw' };
    const back = await browser.submit(`${form.url}/login`, fields, atCallback);
    const landing = await browser.go(back.url);
    expect(landing.status, landing.url).toBe(200);
    const session = await app.services.sessions.fromCookie(
      browser.cookie(proxyHost, sessionCookieName),
    );
    expect(session).toMatchObject({ user: 'dave@example.com', roles: ['access'] });
    const user = await app.services.users.store.get('dave@example.com');
    expect(user?.user.spec.traits).toMatchObject({ logins: ['dave'] });
  });
});
