import {
  choosePassword,
  expect,
  expectSignedIn,
  linkIn,
  logout,
  postern,
  registerAuthenticatorApp,
  signInWithTotp,
  strongPassword,
  test,
  uniqueUser,
  fillUserAndPassword,
} from './support/identity.js';
import { nextStepCode, totpCode } from './support/totp.js';

test.describe('sign-in with password and authenticator app', () => {
  // Codes are single-use per 30 s step, so a second sign-in may wait for the next step.
  test.describe.configure({ timeout: 120_000 });

  test('the first admin accepts the start-up invite, logs out and logs in with a code', async ({
    page,
    server,
  }) => {
    const printed = server.logs.find((entry) => typeof entry.inviteUrl === 'string')?.inviteUrl;
    const invite = linkIn(String(printed ?? JSON.stringify(server.logs)), 'invite');

    await page.goto(invite);
    await expect(page).toHaveTitle('Invite');
    await expect(page.getByRole('heading', { name: 'Welcome to Postern' })).toBeVisible();
    await choosePassword(page);
    await expect(page).toHaveURL(/\/continue$/);
    const secret = await registerAuthenticatorApp(page);
    await expectSignedIn(page);

    // The invite is single-use.
    await logout(page);
    await page.goto(invite);
    await expect(page.getByText('This link is invalid or has expired.')).toBeVisible();

    await page.goto('/web/login');
    await signInWithTotp(page, 'admin', strongPassword, await nextStepCode(secret));
    await expectSignedIn(page);
    // The admin holds `access` too, so the nav's first page, Servers, is where they land.
    await expect(page).toHaveURL(/\/web\/cluster\/e2e-cluster\/nodes$/);
  });

  test('a reset replaces the password and the authenticator', async ({ page, server }) => {
    const name = uniqueUser('rita');
    await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', 'access'), 'invite'));
    await choosePassword(page);
    const oldSecret = await registerAuthenticatorApp(page);
    await expectSignedIn(page);
    await logout(page);

    const reset = linkIn(postern(server, 'users', 'reset', name), 'reset');
    await page.goto(reset);
    await expect(page).toHaveTitle('Password Reset');
    await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
    const newPassword = 'a-brand-new-passphrase-42';
    await choosePassword(page, newPassword);
    const newSecret = await registerAuthenticatorApp(page);
    expect(newSecret).not.toBe(oldSecret);
    await expectSignedIn(page);
    await logout(page);

    // The old password no longer works; the new one with the new authenticator does.
    await signInWithTotp(page, name, strongPassword, totpCode(newSecret));
    await expect(page.getByText('invalid credentials')).toBeVisible();
    await page.reload();
    await signInWithTotp(page, name, newPassword, await nextStepCode(newSecret));
    await expectSignedIn(page);
  });

  test('five failed logins lock the account, even against the right password', async ({
    page,
    server,
  }) => {
    const name = uniqueUser('lou');
    await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', 'access'), 'invite'));
    await choosePassword(page);
    const secret = await registerAuthenticatorApp(page);
    await logout(page);

    for (let attempt = 1; attempt <= 5; attempt++) {
      await signInWithTotp(page, name, `wrong-password-${attempt}-xx`, totpCode(secret));
      const alert = page.getByRole('alert');
      // Even the failure that locks the account says only this: the lock is told to the right
      // password and code alone.
      await expect(alert).toContainText('invalid credentials');
      await page.reload();
    }
    await signInWithTotp(page, name, strongPassword, await nextStepCode(secret));
    await expect(page.getByRole('alert')).toContainText('account is locked until');

    // An admin can unlock.
    postern(server, 'users', 'unlock', name);
    await page.reload();
    await fillUserAndPassword(page, name, strongPassword);
    await page.getByRole('radio', { name: 'Authenticator app' }).check();
    await page.getByLabel('Authenticator code', { exact: true }).fill(await nextStepCode(secret));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectSignedIn(page);
  });
});
