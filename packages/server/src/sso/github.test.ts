import { ssoErrorRoutes } from '@postern/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';
import { TestBrowser } from '../testing/browser.testkit.js';
import { startGithubFake, type GithubFake } from '../testing/github-fake.testkit.js';
import { sessionCookieName } from '../http/request-identity.js';
import { hostActor } from '../access-control/access/actor.js';
import { ssoStateCookieName } from './sso-http.js';

let app: TestApp;
let github: GithubFake;
const proxyHost = 'proxy.test:3080';
const callbackUrl = `https://${proxyHost}/v1/webapi/github/callback`;

beforeAll(async () => {
  app = await createTestApp();
  github = await startGithubFake({
    redirectUris: [callbackUrl],
    signedInAs: 'octocat',
    users: {
      octocat: {
        teams: [
          { organization: 'other', team: 'x' },
          { organization: 'acme', team: 'docs' },
          { organization: 'acme', team: 'ops-eu' },
        ],
      },
      loner: { teams: [{ organization: 'elsewhere', team: 'ops-eu' }] },
    },
  });
  await app.services.connectors.create(
    'github',
    `kind: github
version: v3
metadata:
  name: gh
spec:
  display: GitHub
  client_id: ${github.clientId}
  client_secret: ${github.clientSecret}
  endpoint_url: ${github.endpointUrl}
  api_endpoint_url: ${github.apiEndpointUrl}
  teams_to_roles:
  - organization: acme
    team: ops-*
    roles: [access]
  - organization: acme
    team: admins
    roles: [editor]
`,
    hostActor('root'),
  );
});
afterAll(async () => {
  await app.close();
  await github.close();
});

let browser: TestBrowser;
beforeEach(() => {
  browser = new TestBrowser(app);
  github.signedInAs = 'octocat';
});

const loginUrl = (redirect: string) =>
  `/v1/webapi/github/login/web?connector_id=gh&redirect_url=${encodeURIComponent(redirect)}`;
const reason = (url: string) => new URL(url).searchParams.get('details') ?? '';

describe('GitHub sign-in against the GitHub fake', () => {
  it('sends the browser to GitHub-shaped authorize URL with a state and PKCE', async () => {
    const first = await browser.go(loginUrl('/web'), (url) => url.startsWith(github.endpointUrl));
    const authorize = new URL(first.url);
    expect(authorize.pathname).toBe('/login/oauth/authorize');
    expect(authorize.searchParams.get('client_id')).toBe(github.clientId);
    expect(authorize.searchParams.get('redirect_uri')).toBe(callbackUrl);
    expect(authorize.searchParams.get('state')).toBe(browser.cookie(proxyHost, ssoStateCookieName));
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  });

  it('signs in: teams (over several pages) mapped to roles, the login as user and trait', async () => {
    const page = await browser.go(loginUrl('/web/users'));
    expect(page.status).toBe(200);
    expect(page.body).toContain(`content="0;URL='/web/users'"`);
    const session = await app.services.sessions.fromCookie(
      browser.cookie(proxyHost, sessionCookieName),
    );
    expect(session).toMatchObject({ user: 'octocat', roles: ['access'] });
    const user = await app.services.users.store.get('octocat');
    expect(user?.user.spec).toMatchObject({
      authType: 'sso',
      connector: { kind: 'github', name: 'gh' },
      traits: { logins: ['octocat'], github_teams: ['other/x', 'acme/docs', 'acme/ops-eu'] },
    });
    const events = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 864e5),
      limit: 100,
    });
    expect(events.events).toContainEqual(
      expect.objectContaining({ code: 'T1001I', user: 'octocat', method: 'github' }),
    );
  });

  it('refuses a person whose teams map to no role (an org glob does not match elsewhere)', async () => {
    github.signedInAs = 'loner';
    const page = await browser.go(loginUrl('/web'), (url) => url.includes('/web/msg/'));
    expect(new URL(page.url).pathname).toBe(ssoErrorRoutes.unauthorized);
    expect(reason(page.url)).toContain('user loner is not mapped to any role');
    expect(browser.cookie(proxyHost, sessionCookieName)).toBeUndefined();
  });

  it('refuses a tampered state and a reused one', async () => {
    const callback = new URL(
      (await browser.go(loginUrl('/web'), (url) => url.startsWith(callbackUrl))).url,
    );
    const good = callback.toString();
    callback.searchParams.set('state', 'x'.repeat(43));
    const tampered = await browser.go(callback.toString(), (url) => url.includes('/web/msg/'));
    expect(reason(tampered.url)).toContain('does not match this browser');

    // The state cookie is gone with the refused attempt; a replay brings it back by hand.
    const state = new URL(good).searchParams.get('state') ?? '';
    browser.setCookie(proxyHost, ssoStateCookieName, state);
    const first = await browser.go(good, (url) => url.includes('/web/msg/'));
    expect(first.status).toBe(200);
    browser.setCookie(proxyHost, ssoStateCookieName, state);
    const again = await browser.go(good, (url) => url.includes('/web/msg/'));
    expect(reason(again.url)).toContain('expired or was already used');
  });

  it('reports a code GitHub refuses without internals', async () => {
    const callback = new URL(
      (await browser.go(loginUrl('/web'), (url) => url.startsWith(callbackUrl))).url,
    );
    callback.searchParams.set('code', 'not-a-code');
    const page = await browser.go(callback.toString(), (url) => url.includes('/web/msg/'));
    expect(new URL(page.url).pathname).toBe(ssoErrorRoutes.callback);
    expect(reason(page.url)).toBe('the sign-in with the identity provider failed');
  });
});
