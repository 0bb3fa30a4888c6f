import { writeFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { test as base, expect, type Browser, type Page } from '@playwright/test';
import { expectSignedIn, linkIn, postern, strongPassword, uniqueUser } from './identity.js';
import { startPostern, type RunningPostern } from './postern-process.js';
import { startWebApp, type RunningWebApp } from './web-app.js';
import { cluster } from './shared-server.js';
import { resolvingToLoopback } from './host-rules.js';

// Applications (docs/apps.md) in a real browser: a proxy of the apps specs' own (one per worker), served over TLS at
// proxy.e2e.test (its app hosts are *.proxy.e2e.test: the app cookie is `__Host-`, so Secure),
// in front of a real web app with a WebSocket. Chromium resolves those names to loopback.

export { cluster };
export const proxyHost = 'proxy.e2e.test';

/** The app people with `env: e2e` may open, and one only `team: finance` may. */
export const appName = 'dash';
export const otherApp = 'ledger';

const role = (name: string, labels: string) => `kind: role
version: v7
metadata:
  name: ${name}
spec:
  allow:
    app_labels: ${labels}
  deny: {}
`;

const appRoles = [
  ['dash-users', '{env: e2e}'],
  ['finance-users', '{team: finance}'],
] as const;

export interface AppsWorld {
  server: RunningPostern;
  upstream: RunningWebApp;
  /** `https://proxy.e2e.test:<port>`: the console, and the JWT's issuer. */
  consoleUrl: string;
  /** `https://dash.proxy.e2e.test:<port>`: the app's origin. */
  appOrigin: string;
  port: number;
}

export const test = base.extend<object, { world: AppsWorld }>({
  // This worker's Chromium resolves the proxy's names, and only those, to 127.0.0.1.
  launchOptions: resolvingToLoopback(proxyHost),
  world: [
    // Playwright reads fixture dependencies from this destructuring, so it must stay an object.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const upstream = await startWebApp();
      const configYaml = `public_addr: ${proxyHost}:0
auth:
  second_factor: 'off'
  login_rate_limit: 10000
apps:
  - name: ${appName}
    uri: ${upstream.uri}
    description: The e2e dashboard
    labels: {env: e2e}
  - name: ${otherApp}
    uri: ${upstream.uri}
    description: Finance only
    labels: {team: finance}
`;
      // TLS (no --insecure-no-tls): the proxy's self-signed certificate.
      const server = await startPostern([], { configYaml }).catch(async (error: unknown) => {
        await upstream.stop();
        throw error;
      });
      const port = Number(new URL(server.url).port);
      const consoleUrl = `https://${proxyHost}:${port}`;
      const appOrigin = `https://${appName}.${proxyHost}:${port}`;
      try {
        upstream.trust(consoleUrl, appOrigin, port);
        for (const [name, labels] of appRoles) {
          const file = path.join(server.dataDir, `${name}.yaml`);
          await writeFile(file, role(name, labels));
          postern(server, 'create', '-f', file);
        }
        await use({ server, upstream, consoleUrl, appOrigin, port });
      } finally {
        await server.stop();
        await upstream.stop();
        await rm(server.dataDir, { recursive: true, force: true });
      }
    },
    // Its own budget: starting the proxy is not the first test's time.
    { scope: 'worker', timeout: 60_000 },
  ],
  baseURL: async ({ world }, use) => use(world.consoleUrl),
});

/** A new user with these roles, who sets a password on their invite (and is signed in). */
export async function signUp(page: Page, world: AppsWorld, roles: string): Promise<string> {
  const name = uniqueUser('app');
  const invite = postern(world.server, 'users', 'add', name, '--roles', roles);
  await page.goto(linkIn(invite, 'invite'));
  // No second factor on this proxy: the password is the whole invite.
  await page.getByLabel('Password', { exact: true }).fill(strongPassword);
  await page.getByLabel('Confirm password', { exact: true }).fill(strongPassword);
  await page.getByRole('button', { name: 'Submit', exact: true }).click();
  await expectSignedIn(page);
  return name;
}

/** A browser context of its own: no cookies, no session. */
export const freshContext = (browser: Browser, world: AppsWorld) =>
  browser.newContext({ baseURL: world.consoleUrl, ignoreHTTPSErrors: true });

export async function openApplications(page: Page) {
  await page.goto(`/web/cluster/${cluster}/apps`);
  await expect(page.getByRole('heading', { name: 'Applications', level: 2 })).toBeVisible();
}

/** The Applications row whose name cell is exactly `name`. */
export const appRow = (page: Page, name: string) =>
  page
    .getByRole('main')
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name, exact: true }) });

export { expect };
