import { request, type BrowserContext, type Page } from '@playwright/test';
import { rm } from 'node:fs/promises';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import {
  expect,
  expectSignedIn,
  identityConfig,
  logout,
  signUpWithPasskey,
  test,
} from './support/identity.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

const storedToken = (page: Page) =>
  page.evaluate(
    () =>
      JSON.parse(localStorage.getItem('grv_teleport_token') ?? 'null')?.accessToken as
        string | undefined,
  );

/** A new editor signed in with a passkey (an editor may see Manage Clusters); returns their token. */
async function signInEditor(page: Page, context: BrowserContext, server: RunningPostern) {
  await addVirtualAuthenticator(context, page, { residentKey: true });
  await signUpWithPasskey(page, server, 'editor');
  return storedToken(page);
}

/** A page that needs the session loads its data without a new sign-in. */
async function expectManageClustersLoads(page: Page) {
  await page.getByRole('navigation').getByRole('link', { name: 'Manage Clusters' }).click();
  await expect(page.getByRole('row', { name: /e2e-cluster/ })).toContainText('online');
  await expectSignedIn(page);
}

/**
 * Makes the page's renewals reach the server from outside the browser, with the browser's
 * cookie and bearer, and never answers them: as when a tab is closed or reloaded mid-call, the
 * server has made the new session and the browser never hears of it (nor stores its cookie).
 * Returns the statuses the server gave, one per renewal so far.
 */
async function loseRenewalAnswers(page: Page): Promise<number[]> {
  const outside = await request.newContext();
  page.once('close', () => void outside.dispose());
  const statuses: number[] = [];
  await page.route('**/v1/webapi/sessions/web/renew', async (route) => {
    const sent = route.request();
    const headers = Object.fromEntries(
      Object.entries(await sent.allHeaders()).filter(
        ([name]) => !name.startsWith(':') && name !== 'host' && name !== 'content-length',
      ),
    );
    const answer = await outside.post(sent.url(), { headers, data: sent.postData() ?? '{}' });
    statuses.push(answer.status());
  });
  return statuses;
}

test.describe('the web session lifecycle', () => {
  test('stays signed in across more than two bearer lifetimes by renewing', async ({
    page,
    context,
    server,
  }) => {
    test.setTimeout(120_000);
    const first = await signInEditor(page, context, server);

    // The server's bearer lives 25 s (identityConfig); wait out more than two of them.
    await page.waitForTimeout(60_000);
    const later = await storedToken(page);
    expect(later).toBeTruthy();
    expect(later).not.toBe(first);

    await expectManageClustersLoads(page);
  });

  test('a tab closed in the middle of its renewal leaves the other tabs signed in', async ({
    page,
    context,
    server,
  }) => {
    // What closing a console tab mid-renewal did (most likely behind two CI failures of the
    // Servers tests): the server had renewed the session, the answer was lost, and the tab still
    // open was signed out at its next renewal.
    test.setTimeout(120_000);
    const before = await signInEditor(page, context, server);

    // The second tab renews at once (the bearer lives 25 s); it is closed before the answer.
    const second = await context.newPage();
    const renewals = await loseRenewalAnswers(second);
    await second.goto('/web/support');
    await expect.poll(() => renewals).toEqual([200]);
    await second.close();

    // Past the old session's 30 s grace: the first tab renewed into the session the lost answer
    // carried, and is still signed in, in the page and on the server.
    await page.waitForTimeout(35_000);
    await expectSignedIn(page);
    expect(await storedToken(page)).not.toBe(before);
    await page.reload();
    await expectManageClustersLoads(page);
  });

  test('reloading while a renewal is under way keeps the user signed in', async ({
    page,
    context,
    server,
  }) => {
    // What the Servers tests do when they reload until a row shows: every new page renews at
    // once (the bearer lives 25 s), and the next reload cuts that renewal off after the server
    // has made the new session but before the browser hears of it.
    test.setTimeout(90_000);
    await signInEditor(page, context, server);
    const renewals = await loseRenewalAnswers(page);
    for (let round = 1; round <= 3; round++) {
      await page.reload();
      await expect.poll(() => renewals).toEqual(Array(round).fill(200));
    }
    await page.unrouteAll({ behavior: 'ignoreErrors' });
    await page.reload();
    await expectManageClustersLoads(page);
    // And past the grace of every session renewed away meanwhile.
    await page.waitForTimeout(35_000);
    await page.reload();
    await expectManageClustersLoads(page);
  });

  test('logging out in one tab ends the session in the other', async ({
    page,
    context,
    server,
  }) => {
    await addVirtualAuthenticator(context, page, { residentKey: true });
    await signUpWithPasskey(page, server);
    const second = await context.newPage();
    await second.goto('/web/support');
    await expectSignedIn(second);

    await page.evaluate(() => localStorage.setItem('grv_teleport_ui_theme', 'dark'));
    await logout(page);
    await expect(second).toHaveURL(/\/web\/login/);
    // The server session is gone too: a fresh load asks for a sign-in.
    await second.goto('/web/clusters');
    await expect(second).toHaveURL(/\/web\/login\?redirect_uri=%2Fweb%2Fclusters/);
    // Logout clears the session's storage but keeps the theme.
    const kept = await page.evaluate(() => ({ ...localStorage }));
    expect(Object.keys(kept).filter((key) => key.includes('token'))).toEqual([]);
    expect(kept.grv_teleport_ui_theme).toBe('dark');
  });

  test('idle users are logged out after the inactivity timeout, active ones are not', async ({
    browser,
  }) => {
    test.setTimeout(90_000);
    const server = await startPostern(['--insecure-no-tls'], {
      configYaml: identityConfig({ idle_timeout: '2m', bearer_ttl: '10m' }),
    });
    const context = await browser.newContext({ baseURL: server.url });
    try {
      const page = await context.newPage();
      await page.clock.install();
      await addVirtualAuthenticator(context, page, { residentKey: true });
      await signUpWithPasskey(page, server);
      const token = await page.evaluate(() =>
        JSON.parse(localStorage.getItem('grv_teleport_token')!),
      );
      expect(token.sessionInactiveTimeout).toBe(120_000);

      // Active for 150 s of browser time: a pointer move every 40 s keeps the session.
      for (let i = 0; i < 4; i++) {
        await page.mouse.move(100 + i * 10, 200);
        await page.clock.fastForward('00:40');
      }
      await expectSignedIn(page);

      // Then idle for longer than the timeout (less its 30 s margin).
      await page.clock.fastForward('02:30');
      await expect(page).toHaveURL(/\/web\/login/);
      await page.goto('/web/clusters');
      await expect(page).toHaveURL(/\/web\/login\?redirect_uri=/);
    } finally {
      await context.close();
      await server.stop();
      await rm(server.dataDir, { recursive: true, force: true });
    }
  });
});
