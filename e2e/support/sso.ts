// @peculiar/x509 (the SAML test IdP's certificate) needs the Reflect polyfill loaded before it.
import 'reflect-metadata';
import { rm } from 'node:fs/promises';
import { test as base, expect, type Browser, type Page } from '@playwright/test';
import {
  startTestOidcProvider,
  type TestAccount,
  type TestOidcProvider,
} from '../../packages/server/src/testing/oidc-provider.testkit.js';
import { identityConfig, signUpWithPasskey, uniqueUser } from './identity.js';
import { startPostern, type RunningPostern } from './postern-process.js';
import { addVirtualAuthenticator } from './webauthn.js';

/**
 * Single sign-on through the console's buttons, in Chromium, against identity providers this
 * process runs on loopback (the server's own testkits: a real `oidc-provider`, the GitHub fake,
 * the SAML test IdP). The server's public address is `localhost` so the callback and ACS URLs it
 * builds are the origin the browser is on, and the `__Host-` cookies (Secure, allowed on
 * http://localhost) come back to it.
 */
export const test = base.extend<object, { server: RunningPostern }>({
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

export const kindLabels = { oidc: 'OIDC', github: 'GitHub', saml: 'SAML' } as const;
export type Kind = keyof typeof kindLabels;

/** Replaces the YAML editor's whole text (typing would fight the editor's auto-indent). */
export async function setEditorText(page: Page, text: string) {
  await page.getByRole('textbox', { name: 'Connector YAML' }).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

/** Manage Auth Connectors → New connector → kind: the template, then our YAML, saved. */
export async function createConnector(
  page: Page,
  server: RunningPostern,
  kind: Kind,
  yaml: string,
) {
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
export async function signInAdmin(page: Page, server: RunningPostern) {
  await addVirtualAuthenticator(page.context(), page, { residentKey: true });
  return signUpWithPasskey(page, server, 'editor,access');
}

/** Someone else, logged out, in a fresh browser context. */
export async function visitor(browser: Browser, server: RunningPostern) {
  const context = await browser.newContext({ baseURL: server.url });
  return { context, page: await context.newPage() };
}

/** Clicks "Sign in with <display>" on the login page; resolves with the user context once signed in. */
export async function clickProvider(page: Page, display: string) {
  await page.goto('/web/login');
  // Wrapped: an async function would otherwise wait for the context itself.
  const userContext = page.waitForResponse((r) =>
    /\/v1\/webapi\/sites\/[^/]+\/context$/.test(r.url()),
  );
  await page.getByRole('button', { name: `Sign in with ${display}` }).click();
  return { userContext };
}

/** The message page a refused sign-in lands on, and its reason. */
export async function expectRefused(page: Page, route: RegExp, reason: RegExp | string) {
  await expect(page).toHaveURL(route);
  await expect(page.getByText('Login Unsuccessful')).toBeVisible();
  await expect(page.getByText(reason)).toBeVisible();
}

export const oidcYaml = (
  name: string,
  issuer: string,
  clientId: string,
  secret: string,
  url: string,
) =>
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

/**
 * The test OIDC provider with these accounts, and a connector for it (named from `prefix`) that
 * an admin creates from the screen in `page`. The caller closes the provider.
 */
export async function oidcConnectorFor(
  page: Page,
  server: RunningPostern,
  accounts: Record<string, TestAccount>,
  prefix = 'oidc-',
): Promise<{ provider: TestOidcProvider; name: string }> {
  const provider = await startTestOidcProvider({
    redirectUris: [`${server.url}/v1/webapi/oidc/callback`],
    accounts,
  });
  try {
    const name = uniqueUser(prefix);
    await signInAdmin(page, server);
    const { issuer, clientId, clientSecret } = provider;
    await createConnector(
      page,
      server,
      'oidc',
      oidcYaml(name, issuer, clientId, clientSecret, server.url),
    );
    return { provider, name };
  } catch (error) {
    await provider.close();
    throw error;
  }
}

/** Signs in on the test OIDC provider's own login form. */
export async function signInAtProvider(page: Page, login: string, password: string) {
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
