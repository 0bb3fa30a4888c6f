import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { test, type Page } from '@playwright/test';
import {
  choosePassword,
  expect,
  expectSignedIn,
  identityConfig,
  linkIn,
  logout,
  postern,
  registerAuthenticatorApp,
  signInWithTotp,
  strongPassword,
  uniqueUser,
} from './support/identity.js';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import { expectConnected, expectOnScreen, runInTerminal } from './support/terminal.js';
import { nextStepCode } from './support/totp.js';

// The events of a real login and a real terminal session show in the Audit Log, and
// the type filter, the text search and the details dialog work on them.
test.describe.serial('audit log', () => {
  let server: RunningPostern;
  let page: Page;
  let name: string;

  test.beforeAll(async ({ browser }) => {
    server = await startPostern(['--insecure-no-tls'], { configYaml: identityConfig() });
    page = await (await browser.newContext({ baseURL: server.url })).newPage();
  });

  test.afterAll(async () => {
    await page?.context().close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  test('a user with access and auditor roles signs in and runs a terminal session', async () => {
    // The registration used this step's code; each code works once, so sign in with the next.
    test.setTimeout(90_000);
    name = uniqueUser('audra');
    const invite = postern(
      server,
      'users',
      'add',
      name,
      '--roles',
      'access,auditor',
      '--logins',
      'root',
    );
    await page.goto(linkIn(invite, 'invite'));
    await choosePassword(page);
    const secret = await registerAuthenticatorApp(page);
    await expectSignedIn(page);
    await logout(page);
    await signInWithTotp(page, name, strongPassword, await nextStepCode(secret));
    await expectSignedIn(page);

    await page.getByRole('navigation').getByRole('link', { name: 'Servers' }).click();
    const row = page.getByRole('main').getByRole('row').filter({ hasText: hostname() });
    await row.getByRole('button', { name: /^Connect to / }).click();
    const [terminal] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('menuitem', { name: 'root', exact: true }).click(),
    ]);
    await expectConnected(terminal);
    await runInTerminal(terminal, 'echo audit-$((40+2))');
    await expectOnScreen(terminal, 'audit-42');
    await terminal.close();
  });

  test('the Audit Log lists the login and the session, filters by type, searches and shows details', async () => {
    await page.getByRole('navigation').getByRole('link', { name: 'Audit Log' }).click();
    await expect(page).toHaveURL(/\/web\/cluster\/[^/]+\/audit$/);
    const main = page.getByRole('main');
    const login = main.getByRole('row').filter({
      hasText: `Local user [${name}] successfully logged in`,
    });
    const session = main
      .getByRole('row')
      .filter({ hasText: `User [${name}] has started a session` });
    await expect(login.first()).toBeVisible();
    await expect(session.first()).toBeVisible();

    // The type filter lists friendly names by family and goes to the server: only
    // session starts come back.
    await main.getByRole('combobox', { name: 'Event types' }).click();
    const sessions = page.getByRole('group', { name: 'Sessions' });
    await expect(page.getByRole('group', { name: 'Users & Auth' })).toBeVisible();
    await expect(page.getByRole('group', { name: 'Locks' })).toBeVisible();
    await expect(page.getByRole('option', { name: 'session.start', exact: true })).toHaveCount(0);
    await sessions.getByRole('option', { name: 'Session Started', exact: true }).click();
    await page.keyboard.press('Escape');
    await expect(session.first()).toBeVisible();
    await expect(login).toHaveCount(0);

    // Text search is on the server too, within the type filter.
    await main.getByRole('searchbox', { name: 'Search events' }).fill(name);
    await main.getByRole('searchbox', { name: 'Search events' }).press('Enter');
    await expect(session.first()).toBeVisible();
    await main.getByRole('searchbox', { name: 'Search events' }).fill('no-such-text-anywhere');
    await main.getByRole('searchbox', { name: 'Search events' }).press('Enter');
    await expect(main.getByText('No events in this range')).toBeVisible();
    await main.getByRole('searchbox', { name: 'Search events' }).fill(name);
    await main.getByRole('searchbox', { name: 'Search events' }).press('Enter');

    await session.first().getByRole('button', { name: 'Session Started' }).click();
    const dialog = page.getByRole('dialog', { name: 'Session Started (T2000I)' });
    await expect(dialog.getByLabel('Event JSON')).toContainText(`"user": "${name}"`);
    await expect(dialog.getByLabel('Event JSON')).toContainText('"event": "session.start"');
    await dialog.getByRole('button', { name: 'Close' }).click();

    // The session's event links to its recording in the player.
    const play = session.first().getByRole('link', { name: /^Play the recording of session / });
    await play.click();
    await expect(page).toHaveURL(/\/web\/cluster\/[^/]+\/session\/[^/?]+\?recordingType=ssh$/);
    await expect(page.getByRole('heading', { name: `root@${hostname()}` })).toBeVisible();
    await expect
      .poll(
        async () =>
          (await page.locator('.xterm-rows > div').allTextContents())
            .join('\n')
            .replace(/\u00a0/g, ' '),
        { timeout: 20_000 },
      )
      .toContain('audit-42');
  });
});
