import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { repoRoot } from './support/postern-process.js';
import { signIn } from './support/session.js';

test.describe('help and the tab icon', () => {
  test("Help & Support links to Postern's own docs, which the proxy serves from docs/", async ({
    page,
    context,
  }) => {
    await signIn(context, ['access']);
    await page.goto('/web/support');
    const links = page.getByRole('list', { name: 'Resources' }).getByRole('link');
    await expect(links.first()).toBeVisible();
    const hrefs = await links.evaluateAll((anchors) =>
      anchors.map((anchor) => (anchor as HTMLAnchorElement).href),
    );
    expect(hrefs.length).toBeGreaterThan(5);
    const origin = new URL(page.url()).origin;
    for (const href of hrefs) {
      // On this proxy, never a third-party page, and each one answers with the file itself.
      const url = new URL(href);
      expect(url.origin).toBe(origin);
      const res = await page.request.get(href);
      expect(res.status(), href).toBe(200);
      const file = path.join(repoRoot, 'docs', url.pathname.replace(/^\/docs\//, ''));
      expect(await res.text()).toBe(readFileSync(file, 'utf8'));
    }

    // Opening one shows the document in a new tab.
    const [doc] = await Promise.all([
      context.waitForEvent('page'),
      links.filter({ hasText: 'Configuration' }).click(),
    ]);
    await expect(doc.getByText('# Configuration')).toBeVisible();
    // A path out of docs/ finds nothing.
    expect((await page.request.get('/docs/..%2Fpackage.json')).status()).toBe(404);
  });

  test('the tab has our icon, and /favicon.ico leads to it instead of a 404', async ({ page }) => {
    await page.goto('/web/login');
    const icon = page.locator('link[rel="icon"]');
    await expect(icon).toHaveAttribute('href', '/web/favicon.svg');
    const svg = await page.request.get('/web/favicon.svg');
    expect(svg.status()).toBe(200);
    expect(svg.headers()['content-type']).toMatch(/^image\/svg\+xml/);
    const legacy = await page.request.get('/favicon.ico', { maxRedirects: 0 });
    expect(legacy.status()).toBe(301);
    expect(legacy.headers().location).toBe('/web/favicon.svg');
    expect((await page.request.get('/favicon.ico')).status()).toBe(200);
  });
});
