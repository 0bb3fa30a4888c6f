import { expect } from '@playwright/test';
import {
  choosePassword,
  expectSignedIn,
  fillUserAndPassword,
  test as identityTest,
  linkIn,
  logout,
  postern,
  signUpWithPasskey,
  strongPassword,
  uniqueUser,
} from './support/identity.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

// The sign-in page: the second factor it offers first, where it goes when already signed in,
// and the message of a lock that ended the session.

// Signing in for real (second factors, passkeys, locks): a server of this worker's own, with
// second_factor on, over http://localhost so that WebAuthn works.
identityTest.describe('signing in', () => {
  identityTest(
    'the form offers the authenticator app first, then the second factor last used on this browser',
    async ({ page, context, server }) => {
      await addVirtualAuthenticator(context, page);
      const name = uniqueUser('kai');
      await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', 'access'), 'invite'));
      await choosePassword(page);
      await page.getByRole('radio', { name: 'Hardware key' }).check();
      await page.getByRole('button', { name: 'Register hardware key', exact: true }).click();
      await expectSignedIn(page);
      await logout(page);

      // Nothing signed in through this form yet, and the cluster allows both: the app.
      await expect(page.getByRole('radio', { name: 'Authenticator app' })).toBeChecked();
      await fillUserAndPassword(page, name, strongPassword);
      await page.getByRole('radio', { name: 'Hardware key' }).check();
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await expectSignedIn(page);
      await logout(page);

      // The key, this time and after a reload: remembered by this browser.
      await expect(page.getByRole('radio', { name: 'Hardware key' })).toBeChecked();
      await page.reload();
      await expect(page.getByRole('radio', { name: 'Hardware key' })).toBeChecked();
      await expect(page.getByLabel('Authenticator code')).toHaveCount(0);
    },
  );

  identityTest(
    'a sign-in redirect: an unknown path lands on the root route; a full URL of ours is kept',
    async ({ page, context, server, baseURL }) => {
      await addVirtualAuthenticator(context, page, { residentKey: true });
      await signUpWithPasskey(page, server);
      const passkeyTo = async (redirect: string) => {
        await logout(page);
        await page.goto(`/web/login?redirect_uri=${encodeURIComponent(redirect)}`);
        await page.getByRole('button', { name: 'Sign in with a passkey', exact: true }).click();
        await expectSignedIn(page);
      };

      await passkeyTo('/web/no/such/page');
      // The root route sends an access user on to Servers: no 404 on the way.
      await expect(page).toHaveURL(/\/web\/cluster\/[^/]+\/nodes$/);
      await expect(page.getByText('The requested path could not be found.')).toHaveCount(0);

      await passkeyTo(`${baseURL}/web/account?tab=1`);
      await expect(page).toHaveURL(/\/web\/account\?tab=1$/);

      await passkeyTo('https://evil.example/web/account');
      await expect(page).toHaveURL(/\/web\/cluster\/[^/]+\/nodes$/);
    },
  );

  identityTest(
    'a lock: the toast reads "Access locked: <message>" under the top bar; after a reload the sign-in page says why',
    async ({ page, context, server, browser, baseURL }) => {
      await addVirtualAuthenticator(context, page, { residentKey: true });
      const name = await signUpWithPasskey(page, server);
      await page.goto('/web/account');
      await expect(page.getByRole('main').getByRole('heading', { name: 'Profile' })).toBeVisible();

      // Where the toast lands, measured the moment it shows: the lock also ends the session soon.
      const toastSeen = new Promise<{ text: string; top: number; headerBottom: number }>(
        (resolve) => void page.exposeFunction('reportLockToast', resolve),
      );
      await page.evaluate(() => {
        const observer = new MutationObserver(() => {
          const toast = Array.from(document.querySelectorAll('[role="alert"]')).find((el) =>
            el.textContent?.includes('Access locked'),
          );
          const header = document.querySelector('header');
          if (!toast || !header) return;
          observer.disconnect();
          (window as unknown as { reportLockToast: (v: unknown) => void }).reportLockToast({
            text: toast.textContent,
            top: toast.getBoundingClientRect().top,
            headerBottom: header.getBoundingClientRect().bottom,
          });
        });
        observer.observe(document.body, { childList: true, subtree: true });
      });
      postern(server, 'locks', 'add', '--user', name, '--message', 'under investigation');
      // Any call of the user's is refused once the server has the lock; opening a page makes one.
      let toast: { text: string; top: number; headerBottom: number } | undefined;
      void toastSeen.then((seen) => (toast = seen));
      const nav = page.getByRole('navigation', { name: 'Main navigation' });
      await expect
        .poll(
          async () => {
            if (toast) return true;
            await nav.getByRole('link', { name: 'Servers' }).click();
            await nav.getByRole('link', { name: 'Session Recordings' }).click();
            return toast !== undefined;
          },
          { timeout: 30_000 },
        )
        .toBe(true);
      expect(toast!.text).toBe('Access locked: under investigation');
      expect(toast!.top).toBeGreaterThanOrEqual(toast!.headerBottom);

      // The session ends; a reload (or the lifecycle) shows the sign-in page with the reason.
      await page.reload();
      await expect(page).toHaveURL(/\/web\/login/, { timeout: 30_000 });
      const notice = page.getByRole('region', { name: 'Access locked' });
      await expect(notice).toContainText('Access locked: under investigation');
      await page.reload();
      await expect(notice).toContainText('Access locked: under investigation');

      // A link cannot make the page say anything: another browser sees a plain form.
      const other = await browser.newContext({ baseURL });
      try {
        const stranger = await other.newPage();
        await stranger.goto(
          `/web/login?message=${encodeURIComponent('Access locked: call 555')}&lock=1`,
        );
        await expect(stranger.getByRole('heading', { name: 'Sign in to Postern' })).toBeVisible();
        await expect(stranger.getByRole('region', { name: 'Access locked' })).toHaveCount(0);
        await expect(stranger.getByText(/555/)).toHaveCount(0);
      } finally {
        await other.close();
      }
    },
  );
});
