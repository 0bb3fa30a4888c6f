import { ssoErrorRoutes } from '@postern/contracts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';
import { TestBrowser, type Page } from '../testing/browser.testkit.js';
import { startTestSamlIdp, type TestSamlIdp } from '../testing/saml-idp.testkit.js';
import { sessionCookieName } from '../http/request-identity.js';
import { hostActor } from '../access-control/access/actor.js';
import { readIdpMetadata } from './saml-idp.js';
import { ssoStateCookieName } from './sso-http.js';

let app: TestApp;
let idp: TestSamlIdp;
const proxyHost = 'proxy.test:3080';
const acsUrl = `https://${proxyHost}/v1/webapi/saml/acs/corp`;

beforeAll(async () => {
  app = await createTestApp();
  idp = await startTestSamlIdp({
    signedInAs: 'alice',
    // Nothing listens at the proxy's address here: the IdP reads our SP metadata through inject.
    spMetadata: async (entityId) =>
      (await app.server.inject({ method: 'GET', url: new URL(entityId).pathname })).body,
    users: {
      alice: { attributes: { groups: ['ops', 'staff'], uid: ['alice'] } },
      nobody: { attributes: { groups: ['guests'] } },
    },
  });
  await app.services.connectors.create(
    'saml',
    `kind: saml
version: v3
metadata:
  name: corp
spec:
  entity_descriptor_url: ${idp.metadataUrl}
  attributes_to_roles:
  - name: groups
    value: ops
    roles: [access]
  attributes_to_traits:
  - name: uid
    trait: logins
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
  idp.signedInAs = 'alice';
  idp.recipient = undefined;
});

const loginUrl = (redirect: string) =>
  `/v1/webapi/saml/login/web?connector_id=corp&redirect_url=${encodeURIComponent(redirect)}`;
const reason = (url: string) => new URL(url).searchParams.get('details') ?? '';
const toMessage = (url: string) => url.includes('/web/msg/');

/** The IdP's auto-post form: where it posts and what. */
function formOf(page: Page) {
  const field = (name: string) =>
    new RegExp(`name="${name}" value="([^"]*)"`).exec(page.body)?.[1] ?? '';
  const action = /action="([^"]+)"/.exec(page.body)?.[1] ?? '';
  return { action, SAMLResponse: field('SAMLResponse'), RelayState: field('RelayState') };
}

async function assertionForm(redirect = '/web/cluster/x') {
  const page = await browser.go(loginUrl(redirect));
  expect(page.url.startsWith(`${idp.entityId.replace('/metadata', '')}/sso`), page.url).toBe(true);
  const form = formOf(page);
  expect(form.action).toBe(acsUrl);
  return form;
}

describe('SAML sign-in against a SAML IdP', () => {
  it('serves SP metadata naming the ACS', async () => {
    const res = await app.server.inject({ method: 'GET', url: '/v1/webapi/saml/metadata/corp' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`Location="${acsUrl}"`);
    expect(res.body).toContain(`entityID="https://${proxyHost}/v1/webapi/saml/metadata/corp"`);
    const missing = await app.server.inject({ method: 'GET', url: '/v1/webapi/saml/metadata/x' });
    expect(missing.statusCode).toBe(404);
  });

  it('reads the IdP metadata', async () => {
    const read = await readIdpMetadata(idp.metadataXml);
    expect(read.sso).toMatch(/\/sso$/);
    expect(read.certs).toHaveLength(1);
  });

  it('signs in: attributes mapped to roles and traits, an SSO user, the session cookie', async () => {
    const form = await assertionForm();
    expect(browser.cookie(proxyHost, ssoStateCookieName)).toBe(form.RelayState);
    const page = await browser.submit(form.action, form);
    expect(page.status, page.body).toBe(200);
    expect(page.body).toContain(`content="0;URL='/web/cluster/x'"`);
    const session = await app.services.sessions.fromCookie(
      browser.cookie(proxyHost, sessionCookieName),
    );
    expect(session).toMatchObject({ user: 'alice', roles: ['access'] });
    const user = await app.services.users.store.get('alice');
    expect(user?.user.spec).toMatchObject({
      authType: 'sso',
      connector: { kind: 'saml', name: 'corp' },
      traits: { logins: ['alice'] },
    });
  });

  it('refuses a tampered assertion', async () => {
    const form = await assertionForm();
    const xml = Buffer.from(form.SAMLResponse, 'base64').toString('utf8');
    const tampered = xml.replace('>staff</saml:AttributeValue>', '>admins</saml:AttributeValue>');
    expect(tampered).not.toBe(xml);
    const page = await browser.submit(
      form.action,
      { ...form, SAMLResponse: Buffer.from(tampered).toString('base64') },
      toMessage,
    );
    expect(new URL(page.url).pathname).toBe(ssoErrorRoutes.callback);
    expect(reason(page.url)).toBe('the sign-in with the identity provider failed');
    expect(browser.cookie(proxyHost, sessionCookieName)).toBeUndefined();
  });

  it('refuses a signed assertion whose Recipient is another ACS', async () => {
    idp.recipient = 'https://elsewhere.test/acs';
    const form = await assertionForm();
    const page = await browser.submit(form.action, form, toMessage);
    expect(new URL(page.url).pathname).toBe(ssoErrorRoutes.callback);
    expect(reason(page.url)).toBe('the sign-in with the identity provider failed');
    expect(browser.cookie(proxyHost, sessionCookieName)).toBeUndefined();
  });

  it('refuses a response posted twice, and one without the browser’s state cookie', async () => {
    const form = await assertionForm();
    expect((await browser.submit(form.action, form)).status).toBe(200);
    browser.setCookie(proxyHost, ssoStateCookieName, form.RelayState);
    const again = await browser.submit(form.action, form, toMessage);
    expect(reason(again.url)).toContain('expired or was already used');

    const other = new TestBrowser(app);
    browser = other;
    const fresh = await assertionForm();
    other.jar.get(proxyHost)?.delete(ssoStateCookieName);
    const foreign = await other.submit(fresh.action, fresh, toMessage);
    expect(reason(foreign.url)).toContain('does not match this browser');
  });

  it('refuses a person mapped to no role', async () => {
    idp.signedInAs = 'nobody';
    const form = await assertionForm();
    const page = await browser.submit(form.action, form, toMessage);
    expect(new URL(page.url).pathname).toBe(ssoErrorRoutes.unauthorized);
    expect(reason(page.url)).toContain('user nobody is not mapped to any role');
  });
});
