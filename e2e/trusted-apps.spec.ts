import { spawnSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test as base, type BrowserContext, type Page } from '@playwright/test';
import {
  expect,
  expectSignedIn,
  linkIn,
  logout,
  postern,
  strongPassword,
  uniqueUser,
} from './support/identity.js';
import { posternBin, startPostern, type RunningPostern } from './support/postern-process.js';
import { resolvingToLoopback } from './support/host-rules.js';
import { trustedClusterYaml } from './support/trusted-cluster.js';
import { startWebApp, type RunningWebApp } from './support/web-app.js';

// A trusted leaf's web app in a real browser through the root (docs/trusted-clusters.md, "A
// leaf's web apps in the browser"): two real `postern start` over TLS, the leaf joined to the
// root with a token from the root's CLI, and a real web app with a WebSocket behind the leaf. A
// root user launches it from the root's Applications page for the leaf; Chromium resolves the
// root's names (and the leaf's, for nothing but the app's JWKS check) to loopback.

const rootHost = 'root.e2e.test';
const leafHost = 'leaf.e2e.test';
const rootName = 'root-apps';
const leafName = 'leaf-apps';
const appName = 'board';

const leafConfig = (uri: string) => `cluster_name: ${leafName}
public_addr: ${leafHost}:0
auth:
  second_factor: 'off'
apps:
  - name: ${appName}
    uri: ${uri}
    description: The leaf's board
    labels: {env: leaf}
`;

/** The leaf's role for root users: its apps labelled env: leaf, nothing else. */
const leafRole = `kind: role
version: v7
metadata:
  name: leaf-apps-user
spec:
  allow:
    app_labels: {env: leaf}
  deny: {}
`;

// The root's self-signed certificate: the leaf (and its CLI) are told to take it.
const insecureRoot = { POSTERN_INSECURE_TLS: '1' };

// This worker's Chromium resolves the root's names, and only those, to 127.0.0.1.
const test = base.extend({ launchOptions: resolvingToLoopback(rootHost) });

test.describe.serial("a trusted leaf's web app through the root", () => {
  let root: RunningPostern | undefined;
  let leaf: RunningPostern | undefined;
  let upstream: RunningWebApp | undefined;
  let context: BrowserContext | undefined;
  let rootUrl = '';

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    upstream = await startWebApp();
    root = await startPostern(['--cluster-name', rootName], {
      configYaml: `public_addr: ${rootHost}:0\nauth:\n  second_factor: 'off'\n`,
    });
    rootUrl = `https://${rootHost}:${new URL(root.url).port}`;
    leaf = await startPostern(['--cluster-name', leafName], {
      configYaml: leafConfig(upstream.uri),
      env: insecureRoot,
    });
    const leafPort = Number(new URL(leaf.url).port);
    // The app checks the JWT the leaf signs, against the leaf's JWKS, for its address there.
    upstream.trust(
      `https://${leafHost}:${leafPort}`,
      `https://${appName}.${leafHost}:${leafPort}`,
      leafPort,
    );
    const roleFile = path.join(leaf.dataDir, 'leaf-role.yaml');
    await writeFile(roleFile, leafRole);
    postern(leaf, 'create', '-f', roleFile);

    const printed = postern(root, 'tokens', 'add', '--type', 'trusted_cluster');
    const token = /The join token: ([0-9a-f]+)/.exec(printed)?.[1];
    expect(token, printed).toBeTruthy();
    const tcFile = path.join(leaf.dataDir, 'trusted-cluster.yaml');
    // The root's address as the leaf dials it: loopback, with the certificate's name.
    await writeFile(
      tcFile,
      trustedClusterYaml({ name: rootName, url: root.url, token: token! }, 'leaf-apps-user'),
    );
    const created = spawnSync(
      process.execPath,
      // The leaf's config names it: the root certifies the name the CLI asks with.
      [
        posternBin,
        'create',
        '-f',
        tcFile,
        '--config',
        path.join(leaf.dataDir, 'postern.yaml'),
        '--data-dir',
        leaf.dataDir,
      ],
      { encoding: 'utf8', env: { ...process.env, ...insecureRoot } },
    );
    expect(created.status, created.stderr).toBe(0);
  });

  // What both servers said about the link, should a step fail.
  // eslint-disable-next-line no-empty-pattern
  test.afterEach(async ({}, testInfo) => {
    if (testInfo.status === testInfo.expectedStatus) return;
    const notable = (server: RunningPostern | undefined) =>
      (server?.logs ?? [])
        .filter(
          (entry) => Number(entry.level) >= 40 || /trust|leaf|root|tunnel/i.test(String(entry.msg)),
        )
        .slice(-30)
        .map((entry) => JSON.stringify(entry));
    const report = ['root:', ...notable(root), 'leaf:', ...notable(leaf)].join('\n');
    await testInfo.attach('diagnosis', { body: report, contentType: 'text/plain' });
    console.log(report);
  });

  test.afterAll(async () => {
    await context?.close();
    for (const server of [leaf, root]) {
      if (!server) continue;
      await server.stop();
      await rm(server.dataDir, { recursive: true, force: true });
    }
    await upstream?.stop();
  });

  const appOrigin = () => `https://${appName}.${rootHost}:${new URL(rootUrl).port}`;

  /** A root user with `access` (which the leaf maps), signed in with a password. */
  async function signUp(page: Page): Promise<string> {
    const name = uniqueUser('leafapp');
    const invite = postern(root!, 'users', 'add', name, '--roles', 'access');
    await page.goto(`${rootUrl}${linkIn(invite, 'invite')}`);
    await page.getByLabel('Password', { exact: true }).fill(strongPassword);
    await page.getByLabel('Confirm password', { exact: true }).fill(strongPassword);
    await page.getByRole('button', { name: 'Submit', exact: true }).click();
    await expectSignedIn(page);
    return name;
  }

  test('Launch on the leaf’s Applications page opens the app on the root’s host, signed in by the leaf', async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    context = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await context.newPage();
    const user = await signUp(page);
    const row = page
      .getByRole('main')
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: appName, exact: true }) });
    // The leaf's link comes up within seconds of its trusted_cluster: until then, no listing.
    await expect(async () => {
      await page.goto(`${rootUrl}/web/cluster/${leafName}/apps`);
      await expect(row).toContainText("The leaf's board", { timeout: 3_000 });
    }).toPass({ timeout: 40_000 });

    const [app] = await Promise.all([
      context.waitForEvent('page'),
      row.getByRole('link', { name: `Launch ${appName}` }).click(),
    ]);
    await expect(app).toHaveURL(`${appOrigin()}/`);
    await expect(app).toHaveTitle('E2E App');
    await expect(app.getByTestId('user')).toHaveText(user);
    // The leaf signed the identity: the app checked it against the leaf's keys.
    await expect(app.getByTestId('verdict')).toHaveText('verified');
    await expect(app.getByTestId('ws-state')).toHaveText('open');
    await expect(app.getByTestId('ws-echo')).toHaveText('echo hello from the page');
    const cookies = await context.cookies(appOrigin());
    expect(cookies.map((cookie) => cookie.name).sort()).toEqual([
      '__Host-postern-app',
      '__Host-postern-app-cluster',
      'app-visit',
    ]);
    const seenCookies = upstream!.seen.map((request) => request.headers.cookie ?? '');
    expect(seenCookies.filter((cookie) => cookie.includes('__Host-'))).toEqual([]);

    // Signing out of the root ends the app session: a reload goes to sign in again.
    await logout(page);
    await expect(async () => {
      await app.reload();
      await expect(app).toHaveURL(new RegExp(`^${rootUrl}/web/login`), { timeout: 2_000 });
    }).toPass({ timeout: 20_000 });
  });
});
