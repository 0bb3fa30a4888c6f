import { rm } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { postern } from './support/identity.js';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import { signIn } from './support/session.js';

// Join Tokens in Chromium: an admin creates a token, sees it once with the commands that use it,
// finds it in the list (and in `postern tokens ls`: the same id), and deletes it, after which the
// install script's link no longer works.

test.describe.serial('join tokens', () => {
  let server: RunningPostern;

  test.beforeAll(async () => {
    server = await startPostern();
  });
  test.afterAll(async () => {
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  test('an admin creates a join token, sees it once, and takes it back', async ({ browser }) => {
    const context = await browser.newContext({ baseURL: server.url });
    await signIn(context, ['editor'], 'tina', server);
    const page = await context.newPage();
    await page.goto('/web');
    await page.getByRole('link', { name: 'Join Tokens' }).click();

    await page.getByRole('button', { name: 'Create Join Token' }).first().click();
    const form = page.getByRole('dialog', { name: 'Create Join Token' });
    await form.getByRole('combobox', { name: 'Labels' }).fill('env=e2e');
    await form.getByRole('combobox', { name: 'Labels' }).press('Enter');
    await form.getByRole('button', { name: 'Create' }).click();

    const created = page.getByRole('dialog', { name: 'Join token created' });
    const token = ((await created.getByLabel('Join token').textContent()) ?? '').trim();
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    await expect(created.getByLabel('Agent command')).toContainText(`--token ${token}`);
    await expect(created.getByLabel('OpenSSH install command')).toContainText(
      `/scripts/${token}/install-node.sh`,
    );
    // The token works: its install script's link answers with the script.
    const script = `${server.url}/scripts/${token}/install-node.sh`;
    expect((await context.request.get(script)).status()).toBe(200);
    await created.getByRole('button', { name: 'Done' }).click();

    // Listed masked; the host's CLI lists the same token by the same id.
    const row = page.getByRole('row').filter({ hasText: `••••${token.slice(-4)}` });
    await expect(row).toContainText('env: e2e');
    await expect(row).toContainText('tina');
    await expect(page.getByText(token)).toHaveCount(0);
    const id = ((await row.getByRole('cell').first().textContent()) ?? '').trim();
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(postern(server, 'tokens', 'ls')).toContain(id);

    await row.getByRole('button', { name: `Delete join token ${id}` }).click();
    await page
      .getByRole('dialog', { name: 'Delete Join Token' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await expect(row).toHaveCount(0);
    expect(postern(server, 'tokens', 'ls')).not.toContain(id);
    // Taken back: the link that worked a moment ago no longer does.
    expect((await context.request.get(script)).status()).toBe(404);
    await context.close();
  });
});
