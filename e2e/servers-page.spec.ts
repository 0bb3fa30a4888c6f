import { hostname } from 'node:os';
import type { Browser, Locator, Page } from '@playwright/test';
import { expect, expectSignedIn, linkIn, postern, test, uniqueUser } from './support/identity.js';
import type { RunningPostern } from './support/postern-process.js';
import { expectConnected, expectOnScreen, runInTerminal } from './support/terminal.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

// The built-in node is the host the test server runs on.
const host = hostname();

/** A user with these roles and no logins, signed in with a passkey in a browser of their own. */
async function signUp(browser: Browser, server: RunningPostern, roles: string) {
  const name = uniqueUser('srv');
  const context = await browser.newContext({ baseURL: server.url });
  const page = await context.newPage();
  await addVirtualAuthenticator(context, page, { residentKey: true });
  await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', roles), 'invite'));
  await page.getByRole('button', { name: 'Use a passkey instead of a password' }).click();
  await page.getByRole('button', { name: 'Register passkey', exact: true }).click();
  await expectSignedIn(page);
  return { name, page, close: () => context.close() };
}

/** Servers, narrowed by a search when given (the test server's cluster is e2e-cluster). */
async function openServers(page: Page, search = '') {
  await page.goto(`/web/cluster/e2e-cluster/nodes${search ? `?search=${search}` : ''}`);
  await expect(page.getByRole('heading', { name: 'Servers', level: 2 })).toBeVisible();
}

/** The row whose hostname cell is exactly `name` (other hostnames may contain it). */
const rowOf = (page: Page, name: string) =>
  page
    .getByRole('main')
    .getByRole('row')
    .filter({ has: page.getByRole('cell', { name, exact: true }) });

const connectButton = (row: Locator) => row.getByRole('button', { name: /^Connect to / });

test.describe('the Servers page', () => {
  test('without logins, Connect says how to get some; the link opens the user’s own edit dialog', async ({
    browser,
    server,
  }) => {
    test.setTimeout(120_000);
    const admin = await signUp(browser, server, 'editor,access');
    const viewer = await signUp(browser, server, 'access');
    try {
      const { page } = admin;
      await openServers(page);
      await expect(page.getByRole('main')).toContainText(
        'You have no logins for the servers listed here. Add logins to your user in Manage Users.',
      );
      await connectButton(rowOf(page, host)).click();
      const menu = page.getByRole('menu');
      await expect(menu).toContainText(
        'You have no logins for this server. Add logins to your user in Manage Users.',
      );
      await expect(menu.getByRole('menuitem')).toHaveCount(0);
      await menu.getByRole('link', { name: 'Manage Users' }).click();

      // The link names the user; the page opens their dialog and forgets the query.
      await expect(page).toHaveURL(/\/web\/users$/);
      const dialog = page.getByRole('dialog', { name: `Edit User ${admin.name}` });
      await expect(dialog).toBeVisible();
      const logins = dialog.getByRole('combobox', { name: 'Logins', exact: true });
      await logins.fill('root');
      await logins.press('Enter');
      await dialog.getByRole('button', { name: 'Save', exact: true }).click();
      await expect(dialog).toBeHidden();

      await openServers(page);
      await connectButton(rowOf(page, host)).click();
      await expect(page.getByRole('menu').getByRole('menuitem', { name: 'root' })).toBeVisible();
      await expect(page.getByRole('main')).not.toContainText('You have no logins');

      // Someone who may not edit users is sent to an admin, with no link to follow.
      await openServers(viewer.page);
      await connectButton(rowOf(viewer.page, host)).click();
      const viewerMenu = viewer.page.getByRole('menu');
      await expect(viewerMenu).toContainText(
        'You have no logins for this server. Ask an admin to add logins to your user.',
      );
      await expect(viewerMenu.getByRole('link')).toHaveCount(0);
    } finally {
      await admin.close();
      await viewer.close();
    }
  });

  test('Connect takes a typed login: one the role allows opens a terminal, another reads the refusal', async ({
    browser,
    server,
  }) => {
    test.setTimeout(120_000);
    const user = await signUp(browser, server, 'access');
    try {
      const { page } = user;
      await openServers(page);
      await connectButton(rowOf(page, host)).click();
      const menu = page.getByRole('menu');
      await expect(menu).toContainText('You have no logins for this server.');

      // Meanwhile an admin gives the user the login root (the access role's logins come from the
      // user's traits). The page, loaded before, still lists none: the typed login is the way.
      postern(server, 'users', 'update', user.name, '--set-logins', 'root');
      await expect(menu.getByRole('menuitem')).toHaveCount(0);
      const field = menu.getByRole('searchbox', { name: 'Login' });
      await field.fill('root');
      const [allowed] = await Promise.all([
        page.context().waitForEvent('page'),
        field.press('Enter'),
      ]);
      await expectConnected(allowed);
      expect(allowed.url()).toContain('/console/node/');
      expect(allowed.url()).toMatch(/\/root$/);
      await runInTerminal(allowed, 'echo typed-as-$(whoami)');
      await expectOnScreen(allowed, 'typed-as-root');
      await allowed.close();

      // A login the role does not allow: the server refuses, and the tab says why in words.
      await connectButton(rowOf(page, host)).click();
      await page.getByRole('menu').getByRole('searchbox', { name: 'Login' }).fill('nobody-here');
      const [refused] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('menu').getByRole('searchbox', { name: 'Login' }).press('Enter'),
      ]);
      await expect(refused.getByRole('status')).toHaveText(
        `disconnected: access denied: login "nobody-here" is not allowed on ${host}`,
      );
      await refused.close();
    } finally {
      await user.close();
    }
  });

  test('the sorted column shows its direction and aria-sort; clicking toggles it', async ({
    browser,
    server,
  }) => {
    // Two agentless servers on closed loopback ports: enough to see an order.
    const tag = uniqueUser('sort-').toLowerCase();
    postern(server, 'nodes', 'add', '--name', `a-${tag}`, '--addr', '127.0.0.1:9');
    postern(server, 'nodes', 'add', '--name', `b-${tag}`, '--addr', '127.0.0.2:9');
    const admin = await signUp(browser, server, 'editor,access');
    try {
      const { page } = admin;
      await openServers(page, tag);
      const header = (name: string) => page.getByRole('main').getByRole('columnheader', { name });
      const hostnames = () =>
        page.getByRole('main').getByRole('row').locator('td:first-child').allInnerTexts();

      // No sort asked for: the server's order, hostname ascending, and the header says so.
      await expect(header('Hostname')).toHaveAttribute('aria-sort', 'ascending');
      await expect(header('Hostname')).toContainText('▲');
      await expect(header('Status')).not.toHaveAttribute('aria-sort');
      expect(await hostnames()).toEqual([`a-${tag}`, `b-${tag}`]);

      await header('Hostname').getByRole('button').click();
      await expect(header('Hostname')).toHaveAttribute('aria-sort', 'descending');
      await expect(header('Hostname')).toContainText('▼');
      await expect(page).toHaveURL(/sort=hostname%3Adesc|sort=hostname:desc/);
      await expect.poll(hostnames).toEqual([`b-${tag}`, `a-${tag}`]);

      await header('Hostname').getByRole('button').click();
      await expect(header('Hostname')).toHaveAttribute('aria-sort', 'ascending');
      await expect.poll(hostnames).toEqual([`a-${tag}`, `b-${tag}`]);

      await header('Address').getByRole('button').click();
      await expect(header('Address')).toHaveAttribute('aria-sort', 'ascending');
      await expect(header('Hostname')).not.toHaveAttribute('aria-sort');
      await expect(header('Hostname')).not.toContainText('▲');
    } finally {
      await admin.close();
    }
  });

  test('at 420 px wide, the status chip and Connect stay whole, on screen and clickable', async ({
    browser,
    server,
  }) => {
    const user = await signUp(browser, server, 'access');
    try {
      const { page } = user;
      await page.setViewportSize({ width: 420, height: 800 });
      await openServers(page);
      const row = rowOf(page, host);
      const chip = row.getByText('online', { exact: true });
      const connect = connectButton(row);
      await expect(chip).toBeVisible();
      await expect(connect).toBeVisible();

      // Address and labels give way; nothing makes the page scroll sideways.
      await expect(page.getByRole('columnheader', { name: 'Address' })).toBeHidden();
      await expect(page.getByRole('columnheader', { name: 'Labels' })).toBeHidden();
      const pageWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(pageWidth).toBeLessThanOrEqual(420);

      for (const element of [chip, connect]) {
        const box = (await element.boundingBox())!;
        const cell = (await element.locator('xpath=ancestor::td[1]').boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(420);
        expect(box.x).toBeGreaterThanOrEqual(cell.x);
        expect(box.x + box.width).toBeLessThanOrEqual(cell.x + cell.width + 0.5);
        // The whole text shows: no part of it that clips (a chip's ellipsis) holds more than fits.
        const cut = await element.evaluate((node) =>
          [node, ...Array.from(node.querySelectorAll('*'))]
            .filter((n) => getComputedStyle(n).overflowX !== 'visible')
            .filter((n) => n.scrollWidth > n.clientWidth + 1)
            .map((n) => `${n.tagName}.${n.className}: ${n.scrollWidth} > ${n.clientWidth}`),
        );
        expect(cut).toEqual([]);
      }
      await expect(chip).toHaveText('online');
      await connect.click();
      await expect(page.getByRole('menu')).toBeVisible();
      await expect(page.getByRole('menu').getByRole('searchbox', { name: 'Login' })).toBeVisible();
    } finally {
      await user.close();
    }
  });
});
