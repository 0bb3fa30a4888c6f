import { expect, test, type Page } from '@playwright/test';
import { signIn } from './support/session.js';

const colorScheme = (page: Page) => page.locator('html').getAttribute('data-mantine-color-scheme');

test.describe('the console shell', () => {
  test('an unknown page shows the 404 screen', async ({ page, context }) => {
    await signIn(context, ['editor']);
    await page.goto('/web/no/such/page');
    await expect(page.getByText('The requested path could not be found.')).toBeVisible();
    await expect(page.getByRole('heading', { name: '404 Not Found' })).toBeVisible();
  });

  test('without a session a private page sends the browser to login with redirect_uri', async ({
    page,
  }) => {
    await page.goto('/web/clusters?sort=name');
    await expect(page).toHaveURL(/\/web\/login\?redirect_uri=/);
    const redirect = new URL(page.url()).searchParams.get('redirect_uri');
    expect(redirect).toBe('/web/clusters?sort=name');
  });

  test('the theme survives a reload and follows a second tab', async ({ page, context }) => {
    await signIn(context, ['editor']);
    await page.goto('/web/support');
    await expect(
      page.getByRole('main').getByRole('heading', { name: 'Help & Support' }),
    ).toBeVisible();
    expect(await colorScheme(page)).toBe('light');

    const second = await context.newPage();
    await second.goto('/web/clusters');
    await expect(second.getByRole('heading', { name: /clusters/i }).first()).toBeVisible();
    expect(await colorScheme(second)).toBe('light');

    // The menu items are chosen with the keyboard: a click while the menu's opening transition
    // runs can land on the page under it (seen under load in CI), which closes the menu.
    await page.getByRole('button', { name: 'Account' }).click();
    await page.getByRole('menuitem', { name: 'Switch to dark theme' }).press('Enter');
    await expect.poll(() => colorScheme(page)).toBe('dark');
    await expect.poll(() => colorScheme(second)).toBe('dark');

    await page.reload();
    await expect(
      page.getByRole('main').getByRole('heading', { name: 'Help & Support' }),
    ).toBeVisible();
    expect(await colorScheme(page)).toBe('dark');
    expect(await page.evaluate(() => localStorage.getItem('grv_teleport_ui_theme'))).toBe('dark');

    await second.getByRole('button', { name: 'Account' }).click();
    await second.getByRole('menuitem', { name: 'Switch to light theme' }).press('Enter');
    await expect.poll(() => colorScheme(page)).toBe('light');
  });

  test('Help & Support shows the version the server reports', async ({
    page,
    context,
    request,
  }) => {
    const ping = await (await request.get('/v1/webapi/ping')).json();
    expect(ping.server_version).toMatch(/^\d+\.\d+\.\d+/);
    await signIn(context, ['access']);
    await page.goto('/web/support');
    const versionRow = page.getByRole('row', { name: /Server version/ });
    await expect(versionRow).toContainText(ping.server_version);
    await expect(page.getByRole('row', { name: /Cluster name/ })).toContainText('e2e-cluster');
    await expect(page).toHaveTitle('Help & Support');
  });

  test('Manage Clusters lists the cluster from the server, and the nav shows only what exists', async ({
    page,
    context,
  }) => {
    await signIn(context, ['editor']);
    // An editor lands on the first page the nav offers them.
    await page.goto('/web');
    await expect(page).toHaveURL(/\/web\/users$/);
    await page.goto('/web/clusters');
    const row = page.getByRole('row', { name: /e2e-cluster/ });
    await expect(row).toContainText('online');
    // The default public address names the port the server really listens on.
    await expect(row).toContainText(`:${new URL(page.url()).port}`);
    const nav = page.getByRole('navigation');
    await expect(nav.getByRole('link', { name: 'Manage Clusters' })).toBeVisible();
    await expect(nav.getByRole('link', { name: 'Servers' })).toHaveCount(0);
  });

  test('the bearer meta tag is moved into storage and removed from the page', async ({
    page,
    context,
  }) => {
    await signIn(context, ['editor']);
    await page.goto('/web/clusters');
    await expect(page.getByRole('row', { name: /e2e-cluster/ })).toBeVisible();
    await expect(page.locator('meta[name="grv_bearer_token"]')).toHaveCount(0);
    const stored = await page.evaluate(() =>
      JSON.parse(localStorage.getItem('grv_teleport_token') ?? 'null'),
    );
    expect(stored.accessToken).toMatch(/^[0-9a-f]{64}$/);
    await expect(page.locator('meta[name="grv_csrf_token"]')).toHaveAttribute(
      'content',
      /^[0-9a-f]{64}$/,
    );
  });

  test('the login error routes show Login Unsuccessful with a way back', async ({ page }) => {
    await page.goto('/web/msg/error/login/callback');
    await expect(page.getByText('Login Unsuccessful')).toBeVisible();
    await page.getByRole('link', { name: 'Please attempt to log in again.' }).click();
    await expect(page).toHaveURL(/\/web\/login/);
  });

  test('the page runs under the strict CSP without violations', async ({ page, context }) => {
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await signIn(context, ['editor']);
    await page.goto('/web/clusters');
    await expect(page.getByRole('row', { name: /e2e-cluster/ })).toBeVisible();
    expect(violations).toEqual([]);
  });
});
