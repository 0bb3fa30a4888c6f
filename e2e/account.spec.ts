import { rm } from 'node:fs/promises';
import type { Locator } from '@playwright/test';
import { startPostern } from './support/postern-process.js';
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
  signUpWithPasskey,
  test,
  uniqueUser,
} from './support/identity.js';
import { nextStepCode, totpCode } from './support/totp.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

/** Picks a second-factor method where the user has several; with one there is nothing to pick. */
async function chooseMethod(scope: Locator, name: string) {
  // count() does not wait: without this, a dialog still opening has no radios yet (CI saw it).
  await expect(scope.locator('form').first()).toBeVisible();
  const radio = scope.getByRole('radio', { name });
  if (await radio.count()) await radio.check();
}

test.describe('account settings', () => {
  test('a passkey user adds an authenticator app after re-authenticating, then removes it', async ({
    page,
    context,
    server,
  }) => {
    await addVirtualAuthenticator(context, page, { residentKey: true });
    await signUpWithPasskey(page, server);
    await page.goto('/web/account/twofactor');
    const main = page.getByRole('main');
    await main.getByRole('button', { name: 'Add two-factor device' }).click();

    const dialog = page.getByRole('dialog', { name: 'Add two-factor device' });
    // A passkey is the user's only device, so it is the only way to verify.
    await dialog.getByRole('button', { name: 'Verify' }).click();
    await dialog.getByRole('radio', { name: 'Authenticator App' }).check();
    const secret = (await dialog.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    await dialog.getByLabel('Device name', { exact: true }).fill('phone');
    await dialog.getByLabel('Authenticator code', { exact: true }).fill(totpCode(secret));
    await dialog.getByRole('button', { name: 'Add device' }).click();
    await expect(page.getByText('Added phone.')).toBeVisible();
    await expect(main.getByRole('row', { name: /phone/ })).toContainText('Authenticator App');

    await main.getByRole('button', { name: 'Remove phone' }).click();
    const remove = page.getByRole('dialog', { name: 'Remove device' });
    await chooseMethod(remove, 'Hardware key');
    await remove.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect(page.getByText('Removed phone.')).toBeVisible();
    await expect(main.getByRole('row', { name: /phone/ })).toHaveCount(0);
  });

  test('change the password with a code; the old password stops working', async ({
    page,
    server,
  }) => {
    test.setTimeout(120_000);
    const name = uniqueUser('cat');
    await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', 'access'), 'invite'));
    await choosePassword(page);
    const secret = await registerAuthenticatorApp(page);
    await expectSignedIn(page);

    await page.goto('/web/account/password');
    const main = page.getByRole('main');
    await main.getByLabel('Current password', { exact: true }).fill('correct-horse-battery-9');
    await main.getByLabel('New password', { exact: true }).fill('password');
    await main.getByLabel('Confirm new password', { exact: true }).fill('password');
    await chooseMethod(main, 'Authenticator app');
    await main.getByRole('button', { name: 'Update password' }).click();
    await expect(main.getByText('Password must be at least 12 characters')).toBeVisible();

    await main.getByLabel('New password', { exact: true }).fill('a-much-better-passphrase-7');
    await main
      .getByLabel('Confirm new password', { exact: true })
      .fill('a-much-better-passphrase-7');
    await main.getByLabel('Authenticator code', { exact: true }).fill(await nextStepCode(secret));
    await main.getByRole('button', { name: 'Update password' }).click();
    await expect(main.getByText('Your password has been changed.')).toBeVisible();

    await logout(page);
    await signInWithTotp(page, name, 'correct-horse-battery-9', await nextStepCode(secret));
    await expect(page.getByRole('alert')).toContainText('invalid credentials');
  });

  test('the message of the day must be acknowledged before signing in', async ({ browser }) => {
    const server = await startPostern(['--insecure-no-tls'], {
      configYaml: identityConfig({ motd: '"Authorised use only. Activity is recorded."' }),
    });
    const context = await browser.newContext({ baseURL: server.url });
    try {
      const page = await context.newPage();
      await page.goto('/web/login');
      await expect(page.getByText('Authorised use only. Activity is recorded.')).toBeVisible();
      await expect(page.getByLabel('Username', { exact: true })).toHaveCount(0);
      await page.getByRole('button', { name: 'Acknowledge' }).click();
      await expect(page.getByLabel('Username', { exact: true })).toBeVisible();
    } finally {
      await context.close();
      await server.stop();
      await rm(server.dataDir, { recursive: true, force: true });
    }
  });
});
