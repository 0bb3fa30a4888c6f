import { ssoErrorRoutes } from '@postern/contracts';
import { parse } from 'yaml';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hostActor } from '../access-control/access/actor.js';
import { loginRuleSchema } from '../access-control/login-rules/login-rule.js';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';
import { TestBrowser } from '../testing/browser.testkit.js';
import { startTestOidcProvider, type TestOidcProvider } from '../testing/oidc-provider.testkit.js';
import { sessionCookieName } from '../http/request-identity.js';

// Login rules rewrite what a real OpenID provider (the oidc-provider package) sent, at sign-in.

let app: TestApp;
let idp: TestOidcProvider;
const proxyHost = 'proxy.test:3080';
const callbackUrl = `https://${proxyHost}/v1/webapi/oidc/callback`;
const root = hostActor('root');

beforeAll(async () => {
  app = await createTestApp();
  idp = await startTestOidcProvider({
    redirectUris: [callbackUrl],
    accounts: {
      alice: {
        password: 'alice-pw',
        claims: {
          email: 'Alice.Smith@Example.com',
          preferred_username: 'alice',
          groups: ['dev-web', 'dev-db', 'staff'],
        },
      },
    },
  });
  await app.services.connectors.create(
    'oidc',
    `kind: oidc
version: v3
metadata:
  name: idp
spec:
  issuer_url: ${idp.issuer}
  client_id: ${idp.clientId}
  client_secret: ${idp.clientSecret}
  scope: [email, profile, groups]
  username_claim: preferred_username
  claims_to_roles:
  - claim: groups
    value: dev-*
    roles: [access]
  claims_to_traits:
  - claim: preferred_username
    trait: logins
  - claim: email
    trait: email
  - claim: groups
    trait: groups
`,
    root,
  );
});
afterAll(async () => {
  await app.close();
  await idp.close();
});

let browser: TestBrowser;
beforeEach(async () => {
  browser = new TestBrowser(app);
  for (const rule of await app.services.loginRules.list(root)) {
    await app.services.loginRules.remove(rule.metadata.name, root);
  }
});

const saveRule = (yaml: string) =>
  app.services.loginRules.save(loginRuleSchema.parse(parse(yaml)), root);

/** Signs alice in at the provider and follows the callback: where the browser lands. */
async function signInAlice() {
  const form = await browser.go(
    `/v1/webapi/oidc/login/web?connector_id=idp&redirect_url=${encodeURIComponent('/web')}`,
  );
  const back = await browser.submit(
    `${form.url}/login`,
    { login: 'alice', password: 'alice-pw' },
    (url) => url.startsWith(callbackUrl),
  );
  return browser.go(back.url, (url) => url.includes('/web/msg/') || url.endsWith('/web'));
}

describe('login rules at single sign-on', () => {
  it('gives the user the traits the rules make of the provider’s', async () => {
    await saveRule(`kind: login_rule
version: v1
metadata: {name: logins-from-email}
spec:
  traits_map:
    logins: [external.logins, 'strings.lower(email.local(external.email))']
    kubernetes_groups: ['regexp.replace(external.groups, "^dev-(.*)$", "$1")']
`);
    const landing = await signInAlice();
    expect(landing.status, landing.url).toBe(200);
    expect(browser.cookie(proxyHost, sessionCookieName)).toMatch(/^[0-9a-f]{64}$/);
    const user = await app.services.users.store.get('alice');
    expect(user?.user.spec.traits).toEqual({
      logins: ['alice', 'alice.smith'],
      kubernetes_groups: ['web', 'db'],
    });
    // The access preset's {{internal.logins}} reads them: alice's certificate names alice.smith.
    // (Once the server's watched copy of the users has the new record.)
    await expect
      .poll(() => app.services.access.roleSetFor('alice', ['access']).certificateLogins())
      .toEqual(['alice', 'alice.smith']);
  });

  it('without rules, keeps the connector’s traits as they were', async () => {
    await signInAlice();
    const user = await app.services.users.store.get('alice');
    expect(user?.user.spec.traits).toEqual({
      logins: ['alice'],
      email: ['Alice.Smith@Example.com'],
      groups: ['dev-web', 'dev-db', 'staff'],
    });
  });

  it('refuses the sign-in, naming the rule, when a rule cannot apply to the person', async () => {
    await saveRule(`kind: login_rule
version: v1
metadata: {name: wrong-claim}
spec:
  traits_map:
    logins: ['email.local(external.logins)']
`);
    await app.services.users.remove('alice', 'test').catch(() => undefined);
    const page = await signInAlice();
    expect(new URL(page.url).pathname).toBe(ssoErrorRoutes.unauthorized);
    expect(new URL(page.url).searchParams.get('details')).toContain(
      "login rule wrong-claim could not set the trait logins: 'alice' is not an email address",
    );
    expect(browser.cookie(proxyHost, sessionCookieName)).toBeUndefined();
    expect(await app.services.users.store.get('alice')).toBeNull();
  });
});
