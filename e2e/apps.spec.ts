import { type Page } from '@playwright/test';
import { fillUserAndPassword, logout, strongPassword } from './support/identity.js';
import {
  appName,
  appRow,
  expect,
  freshContext,
  openApplications,
  otherApp,
  proxyHost,
  signUp,
  test,
} from './support/apps-world.js';

// One proxy and one app for the file: its tests run one after another in one worker. Each signs a
// user up and drives two origins; the margin is for a busy machine.
test.describe.configure({ mode: 'default', timeout: 120_000 });

const byId = (page: Page, id: string) => page.getByTestId(id);

/** The app's page is up for `user`: identity verified, WebSocket open and echoing. */
async function expectAppPage(app: Page, user: string) {
  await expect(app).toHaveTitle('E2E App');
  await expect(byId(app, 'user')).toHaveText(user);
  await expect(byId(app, 'verdict')).toHaveText('verified');
  await expect(byId(app, 'ws-state')).toHaveText('open');
  await expect(byId(app, 'ws-echo')).toHaveText('echo hello from the page');
}

const ticks = async (app: Page) => Number(await byId(app, 'ws-ticks').innerText());

test.describe('applications through the proxy', () => {
  test('Launch on the Applications page opens the app in a new tab, signed in, with a live WebSocket', async ({
    page,
    context,
    world,
  }) => {
    const user = await signUp(page, world, 'dash-users');
    await openApplications(page);
    const row = appRow(page, appName);
    await expect(row).toContainText('The e2e dashboard');
    // Only the apps the role reaches are listed.
    await expect(appRow(page, otherApp)).toHaveCount(0);

    const exchanges: string[] = [];
    context.on('request', (request) => {
      if (request.url().includes('/x-postern-auth?')) exchanges.push(request.url());
    });
    const [app] = await Promise.all([
      context.waitForEvent('page'),
      row.getByRole('link', { name: `Launch ${appName}` }).click(),
    ]);
    await expect(app).toHaveURL(`${world.appOrigin}/`);
    await expectAppPage(app, user);

    // Ticks keep coming for a few seconds.
    await expect.poll(() => ticks(app)).toBeGreaterThanOrEqual(1);
    const first = await ticks(app);
    await expect.poll(() => ticks(app), { timeout: 20_000 }).toBeGreaterThanOrEqual(first + 3);
    await expect(byId(app, 'ws-state')).toHaveText('open');

    // The app session cookie is the app origin's alone: Secure, HttpOnly, Lax, host-only.
    const appCookies = await context.cookies(world.appOrigin);
    const session = appCookies.find((cookie) => cookie.name === '__Host-postern-app');
    expect(session).toMatchObject({
      domain: `${appName}.${proxyHost}`,
      path: '/',
      secure: true,
      httpOnly: true,
      sameSite: 'Lax',
    });
    expect(appCookies.map((cookie) => cookie.name).sort()).toEqual([
      '__Host-postern-app',
      'app-visit',
    ]);

    // The app got its own cookie back, and never Postern's (neither the app's nor the console's).
    const cookiesSeen = world.upstream.seen.map((request) => request.headers.cookie ?? '');
    expect(cookiesSeen.some((cookie) => cookie.includes('app-visit=yes'))).toBe(true);
    expect(cookiesSeen.filter((cookie) => cookie.includes('__Host-'))).toEqual([]);
    // The WebSocket's upgrade came with the forwarding headers and a fresh identity.
    const upgrade = world.upstream.seen.findLast((request) => request.url === '/ws');
    expect(upgrade?.headers).toMatchObject({
      'x-forwarded-host': `${appName}.${proxyHost}`,
      'x-forwarded-port': String(world.port),
      'x-forwarded-proto': 'https',
      'x-forwarded-for': '127.0.0.1',
    });
    expect(upgrade?.headers['postern-jwt-assertion']).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    // Identity claimed by the page's own script never reaches the app: the proxy's replaces it.
    const status = await app.evaluate(async () => {
      const answer = await fetch('/claimed', {
        headers: { 'Postern-Jwt-Assertion': 'forged', 'X-Forwarded-User': 'mallory' },
      });
      return answer.status;
    });
    expect(status).toBe(200);
    const claimed = world.upstream.seen.findLast((request) => request.url === '/claimed');
    const assertion = String(claimed?.headers['postern-jwt-assertion']);
    const payload = JSON.parse(Buffer.from(assertion.split('.')[1] ?? '', 'base64url').toString());
    expect(payload).toMatchObject({ sub: user, username: user, aud: [world.appOrigin] });
    expect(claimed?.headers['x-forwarded-user']).toBeUndefined();

    // The launch went through one exchange on the app's origin; its state does not work twice.
    expect(exchanges).toHaveLength(1);
    expect(new URL(exchanges[0]!).origin).toBe(world.appOrigin);
    const again = await app.goto(exchanges[0]!);
    expect(again?.status()).toBe(403);
    await expect(app.locator('body')).toHaveText(
      'This link has expired or was already used. Open the application again from Postern.',
    );
  });

  test('a deep link without a session goes through sign-in and lands on its path and query', async ({
    browser,
    world,
  }) => {
    // The user exists with a password (set on the invite, in a browser of its own).
    const setup = await freshContext(browser, world);
    const user = await signUp(await setup.newPage(), world, 'dash-users');
    await setup.close();

    const context = await freshContext(browser, world);
    try {
      const page = await context.newPage();
      await page.goto(`${world.appOrigin}/some/path?q=1`);
      await expect(page).toHaveURL(new RegExp(`^${world.consoleUrl}/web/login\\?`));
      await fillUserAndPassword(page, user, strongPassword);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();

      await expect(page).toHaveURL(`${world.appOrigin}/some/path?q=1`);
      await expect(byId(page, 'requested')).toHaveText('/some/path?q=1');
      await expectAppPage(page, user);
    } finally {
      await context.close();
    }
  });

  test('signing out of the console closes the app’s WebSocket; a reload asks for a sign-in', async ({
    page,
    context,
    world,
  }) => {
    const user = await signUp(page, world, 'dash-users');
    const app = await context.newPage();
    // Straight to the app's URL: no app session yet, so through the launcher, signed in already.
    await app.goto(`${world.appOrigin}/`);
    await expect(app).toHaveURL(`${world.appOrigin}/`);
    await expectAppPage(app, user);
    await expect.poll(() => ticks(app)).toBeGreaterThanOrEqual(1);

    await page.bringToFront();
    await logout(page);
    // The proxy closes an ended session's WebSockets within two seconds; the wait leaves room for a
    // loaded machine.
    await expect(byId(app, 'ws-state')).toHaveText(/^closed/, { timeout: 15_000 });

    await app.reload();
    await expect(app).toHaveURL(new RegExp(`^${world.consoleUrl}/web/login\\?`));
    await expect(app.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  });

  test('without the app’s labels: not listed, and its URL shows an access error', async ({
    page,
    world,
  }) => {
    await signUp(page, world, 'finance-users');
    await openApplications(page);
    // The list loaded (the app this role reaches is there), without the other.
    await expect(appRow(page, otherApp)).toBeVisible();
    await expect(appRow(page, appName)).toHaveCount(0);

    const before = world.upstream.seen.length;
    await page.goto(`${world.appOrigin}/`);
    await expect(page.getByRole('alert')).toContainText(
      'You do not have access to this application.',
    );
    expect(new URL(page.url()).host).toBe(`${proxyHost}:${world.port}`);
    await expect(page.getByTestId('user')).toHaveCount(0);
    expect(world.upstream.seen.length).toBe(before);
  });

  test('a host under the proxy that is no app gets the 404 page, not the console', async ({
    page,
    world,
  }) => {
    const unknown = `https://nope.${proxyHost}:${world.port}`;
    for (const where of ['/', '/web/login']) {
      const response = await page.goto(`${unknown}${where}`);
      expect(response?.status()).toBe(404);
      await expect(page.locator('body')).toHaveText('There is no application at this address.');
      expect(page.url()).toBe(`${unknown}${where}`);
    }
  });
});
