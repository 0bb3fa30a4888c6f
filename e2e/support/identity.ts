import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { test as base, expect, type Page } from '@playwright/test';
import { posternBin, startPostern, type RunningPostern } from './postern-process.js';
import { totpCode } from './totp.js';

/**
 * The configuration identity tests run with: plain HTTP on localhost (Chromium allows WebAuthn
 * there, and `localhost` is a valid relying-party id), and a short bearer so renewal is exercised.
 */
export const identityConfig = (overrides: Record<string, string> = {}) => {
  const auth: Record<string, string> = {
    second_factor: 'on',
    allow_passwordless: 'true',
    webauthn: '{rp_id: localhost}',
    bearer_ttl: '25s',
    // Every test signs in from 127.0.0.1; the per-address limit has its own API test.
    login_rate_limit: '10000',
    ...overrides,
  };
  return ['auth:', ...Object.entries(auth).map(([key, value]) => `  ${key}: ${value}`)].join('\n');
};

/** Runs an admin command of the binary against a running server's data dir. */
export function postern(server: RunningPostern, ...args: string[]) {
  const result = spawnSync(process.execPath, [posternBin, ...args, '--data-dir', server.dataDir], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`postern ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** The invite or reset link a command printed, made relative so it works with baseURL. */
export function linkIn(output: string, kind: 'invite' | 'reset'): string {
  const match = new RegExp(`https?://\\S+(/web/${kind}/[A-Za-z0-9_-]+)`).exec(output);
  if (!match) throw new Error(`no ${kind} link in: ${output}`);
  return match[1]!;
}

let userCounter = 0;
export const uniqueUser = (prefix: string) => `${prefix}${Date.now().toString(36)}${userCounter++}`;

export const strongPassword = 'correct-horse-battery-9';

/** Fills the invite (or reset) screen's password step. */
export async function choosePassword(page: Page, password = strongPassword) {
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Next', exact: true }).click();
}

/** Registers an authenticator app on the invite/reset screen's second step; returns its secret. */
export async function registerAuthenticatorApp(page: Page): Promise<string> {
  await page.getByRole('radio', { name: 'Authenticator app' }).check();
  await expect(page.getByRole('img', { name: 'QR code for your authenticator app' })).toBeVisible();
  const secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
  await page.getByLabel('Authenticator code', { exact: true }).fill(totpCode(secret));
  await page.getByRole('button', { name: 'Submit', exact: true }).click();
  return secret;
}

export async function fillUserAndPassword(page: Page, user: string, password: string) {
  await page.getByLabel('Username', { exact: true }).fill(user);
  await page.getByLabel('Password', { exact: true }).fill(password);
}

export async function signInWithTotp(page: Page, user: string, password: string, code: string) {
  await fillUserAndPassword(page, user, password);
  await page.getByRole('radio', { name: 'Authenticator app' }).check();
  await page.getByLabel('Authenticator code', { exact: true }).fill(code);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** The user menu's button in the top bar: it shows who is signed in (`Account: <name>`). */
export const accountMenu = (page: Page) => page.getByRole('button', { name: /^Account: / });

export async function logout(page: Page) {
  await accountMenu(page).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/web\/login/);
}

/** Signed in: the console shell is up and the user's page loaded. */
export async function expectSignedIn(page: Page) {
  await expect(accountMenu(page)).toBeVisible();
  await expect(page).not.toHaveURL(/\/web\/login/);
}

/**
 * A test type whose `server` is a fresh server per worker, with the identity configuration. Every
 * spec that imports `test` below shares that worker's server; a spec that leaves lasting state
 * behind (servers that joined, alerts) makes a test type of its own with this, so its state never
 * shows in another spec's pages.
 */
export const testWithOwnServer = () =>
  base.extend<object, { server: RunningPostern }>({
    server: [
      // Playwright reads fixture dependencies from this destructuring, so it must stay an object.
      // eslint-disable-next-line no-empty-pattern
      async ({}, use) => {
        const server = await startPostern(['--insecure-no-tls'], { configYaml: identityConfig() });
        await use(server);
        await server.stop();
        await rm(server.dataDir, { recursive: true, force: true });
      },
      { scope: 'worker' },
    ],
    baseURL: async ({ server }, use) => use(server.url),
  });

/** The server the identity specs share, one per worker. */
export const test = testWithOwnServer();
export { expect };

/** Invites a user and registers a passkey for them: the quickest way to a signed-in page. */
export async function signUpWithPasskey(page: Page, server: RunningPostern, roles = 'access') {
  const name = uniqueUser('pk');
  await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', roles), 'invite'));
  await page.getByRole('button', { name: 'Use a passkey instead of a password' }).click();
  await page.getByRole('button', { name: 'Register passkey', exact: true }).click();
  await expectSignedIn(page);
  return name;
}
