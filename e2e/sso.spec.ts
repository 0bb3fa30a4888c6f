// @peculiar/x509 (the SAML test IdP's certificate) needs the Reflect polyfill loaded before it.
import 'reflect-metadata';
import { expect } from '@playwright/test';
import { startGithubFake } from '../packages/server/src/testing/github-fake.testkit.js';
import { startTestSamlIdp } from '../packages/server/src/testing/saml-idp.testkit.js';
import { expectSignedIn, uniqueUser } from './support/identity.js';
import {
  clickProvider,
  createConnector,
  expectRefused,
  oidcConnectorFor,
  signInAdmin,
  signInAtProvider,
  test,
  visitor,
} from './support/sso.js';

// Single sign-on through the console's buttons; the fixtures and helpers: support/sso.ts.
test.describe('single sign-on in the console', () => {
  test('OIDC: an admin adds the connector from the screen; a user signs in at the provider; no role is refused', async ({
    page,
    browser,
    server,
  }) => {
    test.setTimeout(120_000);
    const { provider, name } = await oidcConnectorFor(page, server, {
      carol: {
        password: 'carol-pw',
        claims: { email: 'carol@example.com', groups: ['dev-web'] },
      },
      guest: {
        password: 'guest-pw',
        claims: { email: 'guest@example.com', groups: ['visitors'] },
      },
    });
    try {
      // Carol: the provider's own login form, then back signed in as an SSO user.
      const carol = await visitor(browser, server);
      const { userContext: contextResponse } = await clickProvider(carol.page, `Test OIDC ${name}`);
      await expect(carol.page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
      await signInAtProvider(carol.page, 'carol', 'carol-pw');
      await expectSignedIn(carol.page);
      expect(new URL(carol.page.url()).origin).toBe(server.url);
      const userContext = (await (await contextResponse).json()) as Record<string, unknown>;
      expect(userContext).toMatchObject({ userName: 'carol@example.com', authType: 'sso' });
      await carol.context.close();

      // The admin sees Carol on Manage Users as an SSO user with the mapped role.
      await page.goto('/web/users');
      const row = page.getByRole('main').getByRole('row', { name: /carol@example\.com/ });
      await expect(row).toContainText('SSO');
      await expect(row).toContainText('access');

      // Someone whose groups map to no role is told so, on the "not authorized" page.
      const guest = await visitor(browser, server);
      await guest.page.goto('/web/login');
      await guest.page.getByRole('button', { name: `Sign in with Test OIDC ${name}` }).click();
      await signInAtProvider(guest.page, 'guest', 'guest-pw');
      await expectRefused(
        guest.page,
        /\/web\/msg\/error\/login\/auth\?/,
        `user guest@example.com is not mapped to any role by the oidc connector ${name}`,
      );
      await guest.context.close();
    } finally {
      await provider.close();
    }
  });

  test('OIDC: a tampered state on the way back is refused', async ({ page, browser, server }) => {
    test.setTimeout(120_000);
    const { provider, name } = await oidcConnectorFor(page, server, {
      dave: { password: 'dave-pw', claims: { email: 'dave@example.com', groups: ['dev-x'] } },
    });
    try {
      const dave = await visitor(browser, server);
      // The provider's redirect back to us is rewritten in flight: one character of the state
      // changes. Routes do not see redirected requests, so the login form's POST is intercepted
      // and its redirect chain at the provider followed here, to the hop that names our callback.
      await dave.page.route(`${provider.issuer}/interaction/*/login`, async (route) => {
        const submitted = await route.fetch({ maxRedirects: 0 });
        const resume = new URL(submitted.headers().location ?? '', provider.issuer);
        const back = await dave.context.request.get(resume.toString(), { maxRedirects: 0 });
        const callback = new URL(back.headers().location ?? '');
        const state = callback.searchParams.get('state') ?? '';
        callback.searchParams.set('state', (state[0] === 'A' ? 'B' : 'A') + state.slice(1));
        await route.fulfill({ status: 303, headers: { location: callback.toString() } });
      });
      await dave.page.goto('/web/login');
      await dave.page.getByRole('button', { name: `Sign in with Test OIDC ${name}` }).click();
      await signInAtProvider(dave.page, 'dave', 'dave-pw');
      await expectRefused(
        dave.page,
        /\/web\/msg\/error\/login\/callback\?/,
        'the sign-in response does not match this browser',
      );

      // A made-up callback, as an attacker's link would be, is refused the same way.
      await dave.page.unrouteAll();
      await dave.page.goto('/v1/webapi/oidc/callback?code=forged&state=forged');
      await expectRefused(
        dave.page,
        /\/web\/msg\/error\/login\/callback\?/,
        'the sign-in response does not match this browser',
      );
      await dave.context.close();
    } finally {
      await provider.close();
    }
  });

  test('GitHub (a fake) and SAML (the test IdP): connectors from the screen, sign-in through the buttons; a tampered assertion is refused', async ({
    page,
    browser,
    server,
  }) => {
    test.setTimeout(120_000);
    const github = await startGithubFake({
      redirectUris: [`${server.url}/v1/webapi/github/callback`],
      users: { erin: { teams: [{ organization: 'acme', team: 'ops' }] } },
      signedInAs: 'erin',
    });
    const idp = await startTestSamlIdp({
      users: { frank: { attributes: { groups: ['ops'], uid: ['frank'] } } },
      signedInAs: 'frank',
    });
    try {
      await signInAdmin(page, server);
      const githubName = uniqueUser('gh-');
      await createConnector(
        page,
        server,
        'github',
        `kind: github
version: v3
metadata:
  name: ${githubName}
spec:
  display: Fake GitHub ${githubName}
  client_id: ${github.clientId}
  client_secret: ${github.clientSecret}
  redirect_url: ${server.url}/v1/webapi/github/callback
  endpoint_url: ${github.endpointUrl}
  api_endpoint_url: ${github.apiEndpointUrl}
  teams_to_roles:
    - organization: acme
      team: ops
      roles: [access]
`,
      );
      const samlName = uniqueUser('saml-');
      await createConnector(
        page,
        server,
        'saml',
        `kind: saml
version: v3
metadata:
  name: ${samlName}
spec:
  display: Test SAML ${samlName}
  entity_descriptor_url: ${idp.metadataUrl}
  attributes_to_roles:
    - name: groups
      value: ops
      roles: [access]
  attributes_to_traits:
    - name: uid
      trait: logins
`,
      );

      const erin = await visitor(browser, server);
      const { userContext: erinContext } = await clickProvider(
        erin.page,
        `Fake GitHub ${githubName}`,
      );
      await expectSignedIn(erin.page);
      expect(await (await erinContext).json()).toMatchObject({ userName: 'erin', authType: 'sso' });
      await erin.context.close();

      // The IdP answers with a form its script posts across sites to our ACS.
      const frank = await visitor(browser, server);
      const { userContext: frankContext } = await clickProvider(
        frank.page,
        `Test SAML ${samlName}`,
      );
      await expectSignedIn(frank.page);
      expect(await (await frankContext).json()).toMatchObject({
        userName: 'frank',
        authType: 'sso',
      });
      await frank.context.close();

      // The assertion is changed on its way to the ACS (NameID frank → admin): its signature
      // no longer holds, so no session, and the callback error page.
      const mallory = await visitor(browser, server);
      await mallory.page.route('**/v1/webapi/saml/acs/*', (route) => {
        const form = new URLSearchParams(route.request().postData() ?? '');
        const xml = Buffer.from(form.get('SAMLResponse') ?? '', 'base64').toString('utf8');
        const tampered = xml.replace('>frank</saml:NameID>', '>admin</saml:NameID>');
        expect(tampered).not.toBe(xml);
        form.set('SAMLResponse', Buffer.from(tampered).toString('base64'));
        return route.continue({ postData: form.toString() });
      });
      await mallory.page.goto('/web/login');
      await mallory.page
        .getByRole('button', { name: `Sign in with Test SAML ${samlName}` })
        .click();
      await expectRefused(
        mallory.page,
        /\/web\/msg\/error\/login\/callback\?/,
        'the sign-in with the identity provider failed',
      );
      expect(
        (await mallory.context.cookies()).some((cookie) => cookie.name === '__Host-session'),
      ).toBe(false);
      await mallory.context.close();
    } finally {
      await github.close();
      await idp.close();
    }
  });
});
