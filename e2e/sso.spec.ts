// @peculiar/x509 (the SAML test IdP's certificate) needs the Reflect polyfill loaded before it.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test as base, expect, type Browser, type Page } from '@playwright/test';
import { startGithubFake } from '../packages/server/src/testing/github-fake.testkit.js';
import { startTestOidcProvider } from '../packages/server/src/testing/oidc-provider.testkit.js';
import { startTestSamlIdp } from '../packages/server/src/testing/saml-idp.testkit.js';
import {
  expectSignedIn,
  identityConfig,
  signUpWithPasskey,
  uniqueUser,
} from './support/identity.js';
import { posternBin, startPostern, type RunningPostern } from './support/postern-process.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

/**
 * Single sign-on through the console's buttons, in Chromium, against identity providers this
 * process runs on loopback (the server's own testkits: a real `oidc-provider`, the GitHub fake,
 * the SAML test IdP). The server's public address is `localhost` so the callback and ACS URLs it
 * builds are the origin the browser is on, and the `__Host-` cookies (Secure, allowed on
 * http://localhost) come back to it.
 */
const test = base.extend<object, { server: RunningPostern }>({
  server: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startPostern(['--insecure-no-tls'], {
        configYaml: `${identityConfig()}\npublic_addr: localhost:0\n`,
      });
      await use(server);
      await server.stop();
      await rm(server.dataDir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
  baseURL: async ({ server }, use) => use(server.url),
});

const kindLabels = { oidc: 'OIDC', github: 'GitHub', saml: 'SAML' } as const;
type Kind = keyof typeof kindLabels;

/** Replaces the YAML editor's whole text (typing would fight the editor's auto-indent). */
async function setEditorText(page: Page, text: string) {
  await page.getByRole('textbox', { name: 'Connector YAML' }).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** Manage Auth Connectors → New connector → kind: the template, then our YAML, saved. */
async function createConnector(page: Page, server: RunningPostern, kind: Kind, yaml: string) {
  const name = /name: (\S+)/.exec(yaml)![1]!;
  await page.goto('/web/sso');
  await expect(
    page.getByRole('heading', { name: 'Manage Auth Connectors', level: 2 }),
  ).toBeVisible();
  await page.getByRole('button', { name: 'New connector' }).click();
  await page.getByRole('menuitem', { name: kindLabels[kind] }).click();
  const drawer = page.getByRole('dialog', { name: `New ${kindLabels[kind]} connector` });
  await expect(drawer.getByRole('textbox', { name: 'Connector YAML' })).toContainText(
    `kind: ${kind}`,
  );
  if (kind !== 'saml') {
    await expect(drawer.getByRole('region', { name: 'Setup guide' })).toContainText(
      `${server.url}/v1/webapi/${kind}/callback`,
    );
  }
  await setEditorText(page, yaml);
  if (kind === 'saml') {
    await expect(drawer.getByRole('region', { name: 'Setup guide' })).toContainText(
      `${server.url}/v1/webapi/saml/acs/${name}`,
    );
  }
  await drawer.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(drawer).toBeHidden();
  await expect(
    page.getByRole('article', { name: `${kindLabels[kind]} connector ${name}` }),
  ).toBeVisible();
}

/** An admin (editor) signed in with a passkey, in the test's own context. */
async function signInAdmin(page: Page, server: RunningPostern) {
  await addVirtualAuthenticator(page.context(), page, { residentKey: true });
  return signUpWithPasskey(page, server, 'editor,access');
}

/** Someone else, logged out, in a fresh browser context. */
async function visitor(browser: Browser, server: RunningPostern) {
  const context = await browser.newContext({ baseURL: server.url });
  return { context, page: await context.newPage() };
}

/** Clicks "Sign in with <display>" on the login page; resolves with the user context once signed in. */
async function clickProvider(page: Page, display: string) {
  await page.goto('/web/login');
  // Wrapped: an async function would otherwise wait for the context itself.
  const userContext = page.waitForResponse((r) =>
    /\/v1\/webapi\/sites\/[^/]+\/context$/.test(r.url()),
  );
  await page.getByRole('button', { name: `Sign in with ${display}` }).click();
  return { userContext };
}

/** The message page a refused sign-in lands on, and its reason. */
async function expectRefused(page: Page, route: RegExp, reason: RegExp | string) {
  await expect(page).toHaveURL(route);
  await expect(page.getByText('Login Unsuccessful')).toBeVisible();
  await expect(page.getByText(reason)).toBeVisible();
}

const oidcYaml = (name: string, issuer: string, clientId: string, secret: string, url: string) =>
  `kind: oidc
version: v3
metadata:
  name: ${name}
spec:
  display: Test OIDC ${name}
  issuer_url: ${issuer}
  client_id: ${clientId}
  client_secret: ${secret}
  redirect_url: ${url}/v1/webapi/oidc/callback
  scope: [email, profile, groups]
  username_claim: email
  claims_to_roles:
    - claim: groups
      value: 'dev-*'
      roles: [access]
`;

test.describe('single sign-on in the console', () => {
  test('OIDC: an admin adds the connector from the screen; a user signs in at the provider; no role is refused', async ({
    page,
    browser,
    server,
  }) => {
    test.setTimeout(120_000);
    const provider = await startTestOidcProvider({
      redirectUris: [`${server.url}/v1/webapi/oidc/callback`],
      accounts: {
        carol: {
          password: 'carol-pw',
          claims: { email: 'carol@example.com', groups: ['dev-web'] },
        },
        guest: {
          password: 'guest-pw',
          claims: { email: 'guest@example.com', groups: ['visitors'] },
        },
      },
    });
    try {
      const name = uniqueUser('oidc-');
      await signInAdmin(page, server);
      await createConnector(
        page,
        server,
        'oidc',
        oidcYaml(name, provider.issuer, provider.clientId, provider.clientSecret, server.url),
      );

      // Carol: the provider's own login form, then back signed in as an SSO user.
      const carol = await visitor(browser, server);
      const { userContext: contextResponse } = await clickProvider(carol.page, `Test OIDC ${name}`);
      await expect(carol.page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
      await carol.page.locator('input[name=login]').fill('carol');
      await carol.page.locator('input[name=password]').fill('carol-pw');
      await carol.page.getByRole('button', { name: 'Sign in' }).click();
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
      await guest.page.locator('input[name=login]').fill('guest');
      await guest.page.locator('input[name=password]').fill('guest-pw');
      await guest.page.getByRole('button', { name: 'Sign in' }).click();
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
    const provider = await startTestOidcProvider({
      redirectUris: [`${server.url}/v1/webapi/oidc/callback`],
      accounts: {
        dave: { password: 'dave-pw', claims: { email: 'dave@example.com', groups: ['dev-x'] } },
      },
    });
    try {
      const name = uniqueUser('oidc-');
      await signInAdmin(page, server);
      await createConnector(
        page,
        server,
        'oidc',
        oidcYaml(name, provider.issuer, provider.clientId, provider.clientSecret, server.url),
      );
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
      await dave.page.locator('input[name=login]').fill('dave');
      await dave.page.locator('input[name=password]').fill('dave-pw');
      await dave.page.getByRole('button', { name: 'Sign in' }).click();
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

/** `postern login --auth NAME --no-browser` as a user runs it, in its own POSTERN_HOME. */
async function cliSsoLogin(server: RunningPostern, connector: string) {
  const home = await mkdtemp(path.join(tmpdir(), 'postern-home-'));
  const child = spawn(
    process.execPath,
    [posternBin, 'login', '--proxy', server.url, '--auth', connector, '--no-browser'],
    {
      env: { ...process.env, POSTERN_HOME: path.join(home, '.postern'), HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /Open this URL in a browser to sign in: (\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error(`the CLI ended without a link: ${stdout}${stderr}`)));
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { home, url, exit, kill: () => child.kill() };
}

test.describe('single sign-on from the command line', () => {
  test('postern login --auth: the printed link, the provider in Chromium, the Success page; the CLI exits 0', async ({
    page,
    browser,
    server,
  }) => {
    test.setTimeout(120_000);
    const provider = await startTestOidcProvider({
      redirectUris: [`${server.url}/v1/webapi/oidc/callback`],
      accounts: {
        gina: { password: 'gina-pw', claims: { email: 'gina@example.com', groups: ['dev-ops'] } },
      },
    });
    const name = uniqueUser('oidc-cli-');
    let cli: Awaited<ReturnType<typeof cliSsoLogin>> | undefined;
    try {
      await signInAdmin(page, server);
      await createConnector(
        page,
        server,
        'oidc',
        oidcYaml(name, provider.issuer, provider.clientId, provider.clientSecret, server.url),
      );
      cli = await cliSsoLogin(server, name);
      const link = await cli.url;
      expect(link).toMatch(new RegExp(`^${server.url}/v1/webapi/oidc/login/console/[\\w-]{43}$`));

      // Gina, in a browser with no session: the provider's form, then back to the CLI's
      // loopback, which sends her on to the Success page once the certificate is written.
      const gina = await visitor(browser, server);
      await gina.page.goto(link);
      await expect(gina.page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
      await gina.page.locator('input[name=login]').fill('gina');
      await gina.page.locator('input[name=password]').fill('gina-pw');
      await gina.page.getByRole('button', { name: 'Sign in' }).click();
      await expect(gina.page).toHaveURL(`${server.url}/web/msg/info/login_success`);
      await expect(gina.page.getByRole('heading', { name: 'Success' })).toBeVisible();
      await expect(gina.page).toHaveTitle('Success');
      // No web session was made for the CLI's sign-in.
      expect(
        (await gina.context.cookies()).some((cookie) => cookie.name === '__Host-session'),
      ).toBe(false);
      await gina.context.close();

      const { code, stdout, stderr } = await cli.exit;
      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/^Logged in as gina@example\.com to e2e-cluster/m);
      const profile = JSON.parse(
        await readFile(path.join(cli.home, '.postern', 'profile.json'), 'utf8'),
      ) as { user: string; cert_path: string };
      expect(profile.user).toBe('gina@example.com');
      expect(await readFile(profile.cert_path, 'utf8')).toMatch(
        /^ssh-ed25519-cert-v01@openssh\.com /,
      );
    } finally {
      cli?.kill();
      if (cli) await rm(cli.home, { recursive: true, force: true });
      await provider.close();
    }
  });
});
