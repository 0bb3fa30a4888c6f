import { readFile, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { test, type Page } from '@playwright/test';
import {
  expect,
  expectSignedIn,
  identityConfig,
  linkIn,
  postern,
  uniqueUser,
} from './support/identity.js';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import { expectConnected, expectOnScreen, runInTerminal } from './support/terminal.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

// Issue 6: a real terminal session is recorded at the proxy, listed in Session Recordings, played
// in the player, seeked to its middle (which must show the screen of that moment, not of the
// start), and downloaded as a .cast that asciinema can play.
test.describe.serial('session recordings', () => {
  let server: RunningPostern;
  let page: Page;
  const host = hostname();

  test.beforeAll(async ({ browser }) => {
    server = await startPostern(['--insecure-no-tls'], { configYaml: identityConfig() });
    const context = await browser.newContext({ baseURL: server.url, acceptDownloads: true });
    page = await context.newPage();
    await addVirtualAuthenticator(context, page, { residentKey: true });
  });

  test.afterAll(async () => {
    await page?.context().close();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  test('a session in three phases is recorded', async () => {
    test.setTimeout(90_000);
    const name = uniqueUser('rec');
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
    await page.getByRole('button', { name: 'Use a passkey instead of a password' }).click();
    await page.getByRole('button', { name: 'Register passkey', exact: true }).click();
    await expectSignedIn(page);

    await page.getByRole('navigation').getByRole('link', { name: 'Servers' }).click();
    const row = page.getByRole('main').getByRole('row').filter({ hasText: host });
    await row.getByRole('button', { name: /^Connect to / }).click();
    const [terminal] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('menuitem', { name: 'root', exact: true }).click(),
    ]);
    await expectConnected(terminal);
    // Each phase clears the screen, so only the right moment of the recording shows its word;
    // 6 s apart, so keyframes (every 5 s) fall between them and the seek starts from one. The
    // session ends 5 s after the last phase, so the middle of the recording is in the second.
    const phase = (word: string) => `clear; echo "${word}-$((6*7))"`;
    await runInTerminal(
      terminal,
      `${phase('alpha')}; sleep 6; ${phase('bravo')}; sleep 6; ${phase('charlie')}; sleep 5; exit`,
    );
    await expectOnScreen(terminal, 'charlie-42', 30_000);
    await expect(terminal.getByRole('status').filter({ hasText: 'disconnected:' })).toBeVisible({
      timeout: 15_000,
    });
    await terminal.close();
  });

  test('Session Recordings lists it and the player plays, seeks and downloads it', async () => {
    test.setTimeout(90_000);
    await page.getByRole('navigation').getByRole('link', { name: 'Session Recordings' }).click();
    await expect(page).toHaveURL(/\/web\/cluster\/[^/]+\/recordings/);
    const table = page.getByRole('table', { name: 'Session Recordings' });
    const recording = table.getByRole('row').filter({ hasText: host }).first();
    await expect(recording).toBeVisible();
    await recording.getByRole('link', { name: `Play recording of ${host}` }).click();
    await expect(page).toHaveURL(
      /\/web\/cluster\/[^/]+\/session\/[^/?]+\?recordingType=ssh&durationMs=\d+/,
    );

    // It plays by itself, idle gaps shortened (skip idle is on), through to the last phase.
    await expect.poll(() => playerScreen(page), { timeout: 20_000 }).toContain('charlie-42');
    await expect(page.getByRole('button', { name: 'Play' })).toBeVisible({ timeout: 20_000 });

    // Seek to the middle (~9 s of ~18 s): bravo is on screen and alpha was cleared.
    const slider = page.getByRole('slider', { name: 'Playback position' });
    const max = Number(await slider.getAttribute('max'));
    expect(max).toBeGreaterThan(15_000);
    await slider.fill(String(Math.round(max / 2)));
    await expect.poll(() => playerScreen(page)).toContain('bravo-42');
    const screen = await playerScreen(page);
    expect(screen).not.toContain('alpha-42');
    expect(screen).not.toContain('charlie-42');
    const middle = Math.floor(max / 2000);
    await expect(page.getByTestId('player-time')).toHaveText(
      new RegExp(`^00:${String(middle).padStart(2, '0')} / 00:\\d\\d$`),
    );

    // Backward to the first phase (a quarter in), then play through to the end.
    await slider.fill(String(Math.round(max / 4)));
    await expect.poll(() => playerScreen(page)).toContain('alpha-42');
    await page.getByRole('button', { name: 'Play' }).click();
    await expect.poll(() => playerScreen(page), { timeout: 20_000 }).toContain('charlie-42');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download .cast' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^[0-9a-f-]+\.cast$/);
    const lines = (await readFile(await download.path(), 'utf8')).trim().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ version: 2, env: { TERM: 'xterm-256color' } });
    const output = lines.slice(1).map((line) => JSON.parse(line) as [number, string, string]);
    const text = output.map(([, , data]) => data).join('');
    for (const word of ['alpha-42', 'bravo-42', 'charlie-42']) expect(text).toContain(word);
    expect(output.at(-1)![0]).toBeGreaterThan(12);
  });
});

/** The player's screen, one line per row (xterm's DOM renderer in headless Chromium). */
async function playerScreen(page: Page): Promise<string> {
  const rows = await page.locator('.xterm-rows > div').allTextContents();
  return rows.map((row) => row.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
}
