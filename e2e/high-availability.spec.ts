import { hostname } from 'node:os';
import { test, type Page } from '@playwright/test';
import { testLogin } from '../packages/server/src/testing/ha-storage.testkit.js';
import { startHaWorld, type HaWorld } from './support/ha-cluster.js';
import {
  choosePassword,
  expect,
  expectSignedIn,
  linkIn,
  registerAuthenticatorApp,
  uniqueUser,
} from './support/identity.js';
import { expectConnected, expectOnScreen, runInTerminal, terminal } from './support/terminal.js';

// Three proxies on PostgreSQL and an S3 bucket behind haproxy, and an agent's node
// (docs/high-availability.md). A browser terminal through haproxy; the proxy holding it is
// SIGKILLed. The tab says it is disconnected and offers Reconnect, which opens a new session
// through haproxy, on a proxy that is up. A survivor seals the killed session's recording, which is
// listed in Session Recordings and plays with what was typed before the kill.

const host = hostname();
/** proxy_ttl (3 s) + the backend's sweep (1 s), which starts DeadProxyRecovery's look, + the upload. */
const recordingListedWithinMs = 15_000;

let world: HaWorld;

test.beforeAll(async () => {
  const started = Date.now();
  world = await startHaWorld();
  console.log(`the HA cluster started in ${Date.now() - started} ms`);
});

test.afterAll(async () => {
  await world?.close();
});

// Playwright reads fixture dependencies from this destructuring, so it must stay an object.
// eslint-disable-next-line no-empty-pattern
test.afterEach(async ({}, testInfo) => {
  if (world && testInfo.status !== testInfo.expectedStatus) {
    await testInfo.attach('cluster logs', { body: world.logs(), contentType: 'text/plain' });
  }
});

test('a proxy killed under a terminal: Reconnect lands on another proxy, and the killed session’s recording plays', async ({
  browser,
}) => {
  const context = await browser.newContext({ baseURL: world.url });
  const page = await context.newPage();
  const timings: string[] = [];

  // Signed in through haproxy: the invite's password and authenticator app.
  const name = uniqueUser('ha');
  await page.goto(linkIn(world.addUser(name, ['access', 'auditor'], [testLogin]), 'invite'));
  await choosePassword(page);
  await registerAuthenticatorApp(page);
  await expectSignedIn(page);

  // A terminal on the agent's node, from the Servers page.
  await page.getByRole('navigation').getByRole('link', { name: 'Servers' }).click();
  const row = page.getByRole('main').getByRole('row').filter({ hasText: host });
  await row.getByRole('button', { name: /^Connect to / }).click();
  const [consolePage] = await Promise.all([
    context.waitForEvent('page'),
    page.getByRole('menuitem', { name: testLogin, exact: true }).click(),
  ]);
  await expectConnected(consolePage);
  await runInTerminal(consolePage, 'echo "before-$((6*7))"');
  await expectOnScreen(consolePage, 'before-42');

  // Which proxy holds it: the session's tracker names it.
  const sid = await sessionOf(name);
  const holder = await world.holderOf(sid);
  expect(holder, `the proxy holding ${sid}`).toBeDefined();
  // The output reaches the spool within spool_flush_interval (1 s): let it, before the kill.
  await consolePage.waitForTimeout(2_000);

  const killedAt = Date.now();
  await holder!.kill('SIGKILL');
  // Timed from the cluster's own audit log, so the browser's pace on a slow machine is not counted.
  const sealed = msUntilSealed(sid, killedAt);
  const status = consolePage.getByRole('status').filter({ hasText: 'disconnected:' });
  await expect(status).toBeVisible();
  await expect(status).toHaveAttribute('data-ended', 'failed');
  const reconnect = consolePage.getByRole('button', { name: 'Reconnect', exact: true });
  await expect(reconnect).toBeVisible();
  timings.push(
    `proxy ${holder!.index} killed; "${await status.innerText()}" ${Date.now() - killedAt} ms after`,
  );

  // Reconnect: the same tab, a new session, on a proxy that is up.
  await reconnect.click();
  const clickedAt = Date.now();
  await expectConnected(consolePage);
  await expect(reconnect).toHaveCount(0);
  await expect(consolePage.getByRole('tab', { name: `${testLogin}@${host}` })).toHaveCount(1);
  await runInTerminal(consolePage, 'echo "after-$((6*7))"');
  await expectOnScreen(consolePage, 'after-42');
  timings.push(`working again ${Date.now() - clickedAt} ms after Reconnect`);
  const second = await sessionOf(name, sid);
  const newHolder = await world.holderOf(second);
  expect(newHolder, `the proxy holding ${second}`).toBeDefined();
  expect(newHolder!.index).not.toBe(holder!.index);
  timings.push(`the new session is on proxy ${newHolder!.index}`);
  expect(holder!.running()).toBe(false);

  // A survivor sealed the killed session's recording in time: listed, and it plays what was typed.
  const sealedAfterMs = await sealed;
  timings.push(`sealed (its end event written) ${sealedAfterMs} ms after the kill`);
  expect(sealedAfterMs, 'ms from the kill to the sealed recording').toBeLessThan(
    recordingListedWithinMs,
  );
  await page.getByRole('navigation').getByRole('link', { name: 'Session Recordings' }).click();
  const table = page.getByRole('table', { name: 'Session Recordings' });
  const play = table.locator(`a[href*="/session/${sid}"]`);
  await expect(async () => {
    await page.reload();
    await expect(table).toBeVisible({ timeout: 5_000 });
    await expect(play).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  timings.push(`recording listed ${Date.now() - killedAt} ms after the kill`);
  await play.click();
  await expect(page.getByText(/This recording is incomplete/)).toBeVisible();
  await expect.poll(() => playerScreen(page), { timeout: 20_000 }).toContain('before-42');
  timings.push(`recording played ${Date.now() - killedAt} ms after the kill`);
  expect(await terminal(consolePage).count()).toBe(1);

  test.info().annotations.push({ type: 'timings', description: timings.join('; ') });
  console.log(`timings: ${timings.join('; ')}`);
  await context.close();
});

/** The id of `user`'s live terminal session (other than `not`), once the proxies list it. */
async function sessionOf(user: string, not?: string): Promise<string> {
  let sid: string | undefined;
  await expect
    .poll(
      async () => {
        const mine = (await world.liveSessions()).filter((t) => t.owner === user && t.id !== not);
        sid = mine.at(-1)?.id;
        return mine.length;
      },
      { message: `${user}'s live session` },
    )
    .toBe(1);
  return sid!;
}

/** What the player's terminal shows (xterm's DOM renderer). */
async function playerScreen(page: Page): Promise<string> {
  const rows = await page.locator('.xterm-rows > div').allTextContents();
  return rows.map((r) => r.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
}

/**
 * Milliseconds from `killedAt` to the lost session's end event, which the survivor writes once it
 * sealed the recording (dead-proxy-recovery.ts); Infinity if it has not come well after the budget.
 */
async function msUntilSealed(sid: string, killedAt: number): Promise<number> {
  while (Date.now() - killedAt < 2 * recordingListedWithinMs) {
    const events = await world.cluster.auditEvents();
    const end = events.find((e) => e.sid === sid && e.event === 'session.end');
    if (end) return end.session_recording === 'on' ? Date.now() - killedAt : Infinity;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return Infinity;
}
