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
    await context.close();
  });
});
