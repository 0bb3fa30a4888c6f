import { expect, type Page } from '@playwright/test';

/** A row of the Servers table that contains `text` (a hostname, a label, a status). */
export const serverRow = (page: Page, text: string) =>
  page.getByRole('main').getByRole('row').filter({ hasText: text });

/**
 * The Servers page does not poll: reload until `check` passes. Each round first waits for the
 * reloaded list to show a row (every spec's cluster has its built-in server), so a slow page
 * load on a busy machine is not mistaken for a missing row; `check` then asks about the row it
 * wants with its own short timeout (about a second: the page does not change until reloaded).
 */
export async function reloadServersUntil(
  page: Page,
  check: () => Promise<void>,
  timeout = 30_000,
): Promise<void> {
  await expect(async () => {
    await page.reload();
    await page.getByRole('main').getByRole('row').nth(1).waitFor({ timeout: 30_000 });
    await check();
  }).toPass({ timeout, intervals: [500] });
}
