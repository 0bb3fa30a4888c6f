import {
  choosePassword,
  expect,
  expectSignedIn,
  fillUserAndPassword,
  linkIn,
  logout,
  postern,
  test,
  uniqueUser,
} from './support/identity.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

test.describe('sign-in with hardware keys and passkeys (Chromium virtual authenticator)', () => {
  test('register a hardware key at invite, then log in with password and key', async ({
    page,
    context,
    server,
  }) => {
    const key = await addVirtualAuthenticator(context, page);
    const name = uniqueUser('kim');
    await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', 'access'), 'invite'));
    await choosePassword(page);
    await page.getByRole('radio', { name: 'Hardware key' }).check();
    await page.getByLabel('Device name', { exact: true }).fill('yubikey-blue');
    await page.getByRole('button', { name: 'Register hardware key', exact: true }).click();
    await expectSignedIn(page);
    expect(await key.credentials()).toHaveLength(1);

    await logout(page);
    await fillUserAndPassword(page, name, 'correct-horse-battery-9');
    await page.getByRole('radio', { name: 'Hardware key' }).check();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expectSignedIn(page);

    // The device shows in Account Settings under the name given.
    await page.goto('/web/account/twofactor');
    const row = page.getByRole('row', { name: /yubikey-blue/ });
    await expect(row).toContainText('Hardware Key');
  });

  test('a key that is not registered is refused with a clear message', async ({
    page,
    context,
    server,
  }) => {
    const name = uniqueUser('ken');
    const first = await addVirtualAuthenticator(context, page);
    await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', 'access'), 'invite'));
    await choosePassword(page);
    await page.getByRole('radio', { name: 'Hardware key' }).check();
    await page.getByRole('button', { name: 'Register hardware key', exact: true }).click();
    await expectSignedIn(page);
    await logout(page);

    // Swap in a different key: the browser finds no matching credential.
    await first.remove();
    await addVirtualAuthenticator(context, page);
    await fillUserAndPassword(page, name, 'correct-horse-battery-9');
    await page.getByRole('radio', { name: 'Hardware key' }).check();
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('alert')).toContainText(
      /error obtaining credential|invalid credentials/,
    );
    await expect(page).toHaveURL(/\/web\/login/);
  });

  test('passwordless: register a passkey instead of a password, then sign in with it alone', async ({
    page,
    context,
    server,
  }) => {
    const passkeys = await addVirtualAuthenticator(context, page, { residentKey: true });
    const name = uniqueUser('pat');
    await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', 'access'), 'invite'));
    await page.getByRole('button', { name: 'Use a passkey instead of a password' }).click();
    await expect(page.getByRole('heading', { name: 'Register a passkey' })).toBeVisible();
    await page.getByRole('button', { name: 'Register passkey', exact: true }).click();
    await expectSignedIn(page);
    const [credential] = await passkeys.credentials();
    expect(credential?.isResidentCredential).toBe(true);

    await logout(page);
    await page.getByRole('button', { name: 'Sign in with a passkey', exact: true }).click();
    await expectSignedIn(page);
    await page.goto('/web/account/twofactor');
    // Spec §3 describes every WebAuthn device as a hardware key, passkeys included.
    await expect(page.getByRole('row', { name: /passkey/ })).toContainText('Hardware Key');
  });

  test('redirect_uri is honoured for our own pages and ignored for anything else', async ({
    page,
    context,
    server,
  }) => {
    // Eight passkey sign-ins, each a full page load: about 18 s alone, over 60 s on a busy machine.
    test.setTimeout(180_000);
    await addVirtualAuthenticator(context, page, { residentKey: true });
    const name = uniqueUser('rudy');
    await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', 'access'), 'invite'));
    await page.getByRole('button', { name: 'Use a passkey instead of a password' }).click();
    await page.getByRole('button', { name: 'Register passkey', exact: true }).click();
    await expectSignedIn(page);
    await logout(page);

    await page.goto(`/web/login?redirect_uri=${encodeURIComponent('/web/support?tab=1')}`);
    await page.getByRole('button', { name: 'Sign in with a passkey', exact: true }).click();
    await expect(page).toHaveURL(/\/web\/support\?tab=1$/);

    const origin = new URL(page.url()).origin;
    const attacks = [
      '//evil.example',
      'https://evil.example/x',
      '/\\evil.example',
      'javascript:alert(1)',
      '%2F%2Fevil.example',
      '/%5Cevil.example',
      'http:%2F%2Fevil.example',
    ];
    for (const attack of attacks) {
      await logout(page);
      await page.goto(`/web/login?redirect_uri=${encodeURIComponent(attack)}`);
      await page.getByRole('button', { name: 'Sign in with a passkey', exact: true }).click();
      await expectSignedIn(page);
      // Not the attacker's page but the default landing page: Servers, for an `access` user.
      await expect(page, attack).toHaveURL(`${origin}/web/cluster/e2e-cluster/nodes`);
    }
  });
});
