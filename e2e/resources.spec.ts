import { rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { postern } from './support/identity.js';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import { cluster } from './support/shared-server.js';
import { signIn } from './support/session.js';
import { expectConnected, expectOnScreen, runInTerminal } from './support/terminal.js';

// The unified Resources page in Chromium: a server, an app and a database in one list, a kind
// filter, and a server's Connect that opens a real terminal on the built-in node. The app's and
// the database's addresses are never dialled.

const role = `kind: role
version: v7
metadata:
  name: everything-viewer
spec:
  allow:
    logins: [root]
    node_labels: {'*': '*'}
    app_labels: {'*': '*'}
    db_labels: {'*': '*'}
    db_users: [reporter]
    db_names: [orders]
`;
// Reaches the apps, and may ask for what everything-viewer reaches.
const requesterRole = `kind: role
version: v7
metadata:
  name: requester
spec:
  allow:
    app_labels: {'*': '*'}
    request:
      search_as_roles: [everything-viewer]
`;

test.describe.serial('the Resources page', () => {
  let server: RunningPostern;

  test.beforeAll(async () => {
    server = await startPostern([], {
      configYaml: [
        'apps: [{name: grafana, uri: "http://127.0.0.1:9", labels: {env: prod}}]',
        'databases: [{name: orders, protocol: postgres, uri: "127.0.0.1:9", labels: {env: prod}}]',
      ].join('\n'),
    });
    const roleFile = path.join(server.dataDir, 'everything-viewer.yaml');
    await writeFile(roleFile, role);
    postern(server, 'create', '-f', roleFile);
    const requesterFile = path.join(server.dataDir, 'requester.yaml');
    await writeFile(requesterFile, requesterRole);
    postern(server, 'create', '-f', requesterFile);
  });
  test.afterAll(async () => {
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  test('lists every kind in one place, filters by kind, and connects from a row', async ({
    browser,
  }) => {
    const context = await browser.newContext({ baseURL: server.url });
    await signIn(context, ['everything-viewer'], 'rita', server);
    const page = await context.newPage();
    await page.goto('/web');
    await page
      .getByRole('navigation', { name: 'Main navigation' })
      .getByRole('link', { name: 'Resources', exact: true })
      .click();
    await expect(page).toHaveURL(new RegExp(`/web/cluster/${cluster}/resources`));
    const main = page.getByRole('main');
    for (const name of [hostname(), 'grafana', 'orders']) {
      await expect(main.getByRole('row').filter({ hasText: name })).toHaveCount(1);
    }

    // Only databases, then all again.
    const kinds = page.getByRole('group', { name: 'Kinds' });
    await kinds.getByText('Databases', { exact: true }).click();
    await expect(main.getByRole('row').filter({ hasText: 'grafana' })).toHaveCount(0);
    await expect(main.getByRole('row').filter({ hasText: 'orders' })).toHaveCount(1);
    await expect(page).toHaveURL(/kinds=db/);
    await main.getByRole('button', { name: 'Connect to orders' }).click();
    await expect(page.getByRole('dialog', { name: 'Connect to orders' })).toContainText(
      'postern db connect orders',
    );
    await page.keyboard.press('Escape');
    await kinds.getByText('All', { exact: true }).click();
    await expect(main.getByRole('row').filter({ hasText: 'grafana' })).toHaveCount(1);

    // The server's own Connect: a login opens its terminal in a new tab.
    await main.getByRole('button', { name: `Connect to ${hostname()}` }).click();
    const [terminal] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('menuitem', { name: 'root' }).click(),
    ]);
    await expectConnected(terminal);
    await runInTerminal(terminal, 'echo resources-$((20+22))');
    await expectOnScreen(terminal, 'resources-42');

    // Duplicate: another session on the same server and login, in a new tab of the console.
    await terminal.getByRole('button', { name: `Duplicate root@${hostname()}` }).click();
    await expect(terminal.getByRole('tab', { name: `root@${hostname()}` })).toHaveCount(2);
    await runInTerminal(terminal, 'echo second-$((40+2))');
    await expectOnScreen(terminal, 'second-42');
    await context.close();
  });

  test('pins follow the user to another browser, on the tab they left', async ({ browser }) => {
    const first = await browser.newContext({ baseURL: server.url });
    await signIn(first, ['everything-viewer'], 'pia', server);
    const page = await first.newPage();
    await page.goto(`/web/cluster/${cluster}/resources`);
    const main = page.getByRole('main');
    await main.getByRole('button', { name: 'Pin orders' }).click();
    await expect(main.getByRole('button', { name: 'Unpin orders' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await page.getByRole('radiogroup', { name: 'Show' }).getByText('Pinned').click();
    await expect(main.getByRole('row').filter({ hasText: 'grafana' })).toHaveCount(0);
    await expect(main.getByRole('row').filter({ hasText: 'orders' })).toHaveCount(1);
    await first.close();

    // Another browser: the server kept both the pin and the tab.
    const second = await browser.newContext({ baseURL: server.url });
    await signIn(second, ['everything-viewer'], 'pia', server);
    const again = await second.newPage();
    await again.goto(`/web/cluster/${cluster}/resources`);
    const list = again.getByRole('main');
    await expect(list.getByRole('row').filter({ hasText: 'orders' })).toHaveCount(1);
    await expect(list.getByRole('row').filter({ hasText: 'grafana' })).toHaveCount(0);
    await list.getByRole('button', { name: 'Unpin orders' }).click();
    await expect(list.getByRole('heading', { name: 'Nothing pinned yet' })).toBeVisible();
    await second.close();
  });

  test('includes what the user could request, and puts it in the request cart', async ({
    browser,
  }) => {
    const context = await browser.newContext({ baseURL: server.url });
    await signIn(context, ['requester'], 'sam', server);
    const page = await context.newPage();
    await page.goto(`/web/cluster/${cluster}/resources`);
    const main = page.getByRole('main');
    await expect(main.getByRole('row').filter({ hasText: 'grafana' })).toHaveCount(1);
    await expect(main.getByRole('row').filter({ hasText: 'orders' })).toHaveCount(0);

    await page.getByRole('combobox', { name: 'Include' }).click();
    await page.getByRole('option', { name: 'Accessible and requestable' }).click();
    const orders = main.getByRole('row').filter({ hasText: 'orders' });
    await expect(orders).toContainText('Requires request');
    await expect(orders.getByRole('button', { name: 'Connect to orders' })).toHaveCount(0);
    await orders.getByRole('button', { name: 'Add orders to request' }).click();
    await page.getByRole('link', { name: 'Request access (1)' }).click();
    await expect(page).toHaveURL(/\/web\/requests\/new/);
    await expect(page.getByRole('main')).toContainText('orders');
    await context.close();
  });
});
