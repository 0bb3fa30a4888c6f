import { rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import {
  expect,
  expectSignedIn,
  identityConfig,
  linkIn,
  postern,
  uniqueUser,
} from './support/identity.js';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

const host = hostname();

/** A loopback port free right now, for a server whose public address must name its own port. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test.describe.serial('lock targets and Manage Clusters', () => {
  let server: RunningPostern;
  let port: number;
  const contexts: BrowserContext[] = [];

  /** A user with these roles (and logins), signed in with a passkey in a browser of their own. */
  async function signUp(
    browser: Browser,
    roles: string,
    logins?: string,
    name = uniqueUser('mgmt'),
  ): Promise<Page> {
    const context = await browser.newContext({ baseURL: server.url });
    contexts.push(context);
    const page = await context.newPage();
    await addVirtualAuthenticator(context, page, { residentKey: true });
    const args = ['users', 'add', name, '--roles', roles, ...(logins ? ['--logins', logins] : [])];
    await page.goto(linkIn(postern(server, ...args), 'invite'));
    await page.getByRole('button', { name: 'Use a passkey instead of a password' }).click();
    await page.getByRole('button', { name: 'Register passkey', exact: true }).click();
    await expectSignedIn(page);
    return page;
  }

  test.beforeAll(async () => {
    // The public address is where this very server is served, so its link can be followed.
    port = await freePort();
    server = await startPostern(
      [
        '--insecure-no-tls',
        '--web-addr',
        `127.0.0.1:${port}`,
        '--public-addr',
        `localhost:${port}`,
      ],
      { configYaml: identityConfig() },
    );
  });

  test.afterAll(async () => {
    for (const context of contexts) await context.close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  test('Create New Lock offers only the kinds Postern enforces; a node lock stops a terminal', async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const admin = await signUp(browser, 'editor,access');
    await admin.goto('/web/locks/new');
    const kind = admin.getByRole('combobox', { name: 'Target kind' });
    await expect(kind.getByRole('option')).toHaveText([
      'User',
      'Role',
      'Login',
      'Node',
      'Desktop',
      'MFA Device',
      'Access Request',
      'Bot Instance',
    ]);

    const message = `patching ${uniqueUser('n')}`;
    await kind.selectOption('node');
    await admin.getByLabel('Target name').fill(host);
    await admin.getByLabel('Message').fill(message);
    await admin.getByRole('button', { name: 'Create Lock' }).click();
    await expect(admin).toHaveURL(/\/web\/locks$/);
    await expect(
      admin.getByRole('main').getByRole('row').filter({ hasText: message }),
    ).toContainText(`node: ${host}`);

    // The lock is enforced, not only stored: the built-in server refuses a new terminal.
    const user = await signUp(browser, 'access', 'root');
    await user.goto('/web/cluster/e2e-cluster/nodes');
    const row = user
      .getByRole('main')
      .getByRole('row')
      .filter({ has: user.getByRole('cell', { name: host, exact: true }) });
    await row.getByRole('button', { name: /^Connect to / }).click();
    const [terminal] = await Promise.all([
      user.context().waitForEvent('page'),
      user.getByRole('menuitem', { name: 'root', exact: true }).click(),
    ]);
    await expect(terminal.getByRole('status')).toHaveText(`disconnected: locked: ${message}`);
  });

  test("an MFA device lock, picked from the owner's devices, signs out what that device signed in", async ({
    browser,
  }) => {
    // Signing out waits for the console's token check, which runs every 15 s.
    test.setTimeout(120_000);
    const admin = await signUp(browser, 'editor,access');
    const ownerName = uniqueUser('owner');
    const owner = await signUp(browser, 'access', undefined, ownerName);
    await admin.goto('/web/locks/new');
    await admin.getByRole('combobox', { name: 'Target kind' }).selectOption('mfa_device');
    await admin.getByLabel('Device owner').fill(ownerName);
    // The owner's one device (the passkey of their invite) is offered under its name.
    const targetName = admin.getByLabel('Target name');
    const offered = admin.locator(`datalist#${await targetName.getAttribute('list')} option`);
    await expect(offered).toHaveCount(1);
    await expect(offered).toHaveAttribute('label', / · Passkey · /);
    const deviceId = (await offered.getAttribute('value'))!;
    expect(deviceId).toMatch(/^[0-9a-f-]{36}$/);
    const message = `key reported lost ${uniqueUser('k')}`;
    await targetName.fill(deviceId);
    await admin.getByLabel('Message').fill(message);
    await admin.getByRole('button', { name: 'Create Lock' }).click();
    await expect(admin).toHaveURL(/\/web\/locks$/);
    await expect(
      admin.getByRole('main').getByRole('row').filter({ hasText: message }),
    ).toContainText(`mfa_device: ${deviceId}`);

    // The owner's console, signed in with that passkey, is refused at its next token check.
    await expect(owner).toHaveURL(/\/web\/login/, { timeout: 30_000 });
    // The admin signed in with a device of their own: still in.
    await admin.reload();
    await expectSignedIn(admin);
  });

  test('Manage Clusters links the public URL, which opens the console in a new tab', async ({
    browser,
  }) => {
    const admin = await signUp(browser, 'editor,access,auditor');
    await admin.goto('/web/clusters');
    const link = admin.getByRole('main').getByRole('link', { name: `localhost:${port}` });
    await expect(link).toHaveAttribute('href', `http://localhost:${port}/`);
    await expect(link).toHaveAttribute('target', '_blank');
    await expect(link).toHaveAttribute('rel', 'noopener noreferrer');

    const [opened] = await Promise.all([admin.context().waitForEvent('page'), link.click()]);
    await expect(opened).toHaveURL(new RegExp(`^http://localhost:${port}/web`));
    await expectSignedIn(opened);
    await opened.close();

    // At 420 px wide the link stays on screen beside the cluster's name and status.
    // The narrow layout comes a render after the resize (media queries): measured once settled.
    await admin.setViewportSize({ width: 420, height: 800 });
    await expect(link).toBeVisible();
    await expect
      .poll(async () => {
        const box = await link.boundingBox();
        return box ? box.x + box.width : Infinity;
      })
      .toBeLessThanOrEqual(420);
    await expect
      .poll(() => admin.evaluate(() => document.documentElement.scrollWidth))
      .toBeLessThanOrEqual(420);
  });
});
