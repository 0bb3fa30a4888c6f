import { spawnSync } from 'node:child_process';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { test, type Locator, type Page } from '@playwright/test';
import {
  expect,
  expectSignedIn,
  identityConfig,
  linkIn,
  postern,
  uniqueUser,
} from './support/identity.js';
import { posternBin, startPostern, type RunningPostern } from './support/postern-process.js';
import {
  expectConnected,
  expectOnScreen,
  playerScreen,
  runInTerminal,
} from './support/terminal.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

// A real terminal session is recorded at the proxy, listed in Session Recordings, played
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
    const ended = terminal.getByRole('status').filter({ hasText: 'disconnected:' });
    await expect(ended).toBeVisible();
    // `exit` is a normal end: neither the status nor the tab reads in the error colour.
    await expect(ended).toHaveText('disconnected: exited with code 0');
    await expect(ended).toHaveAttribute('data-ended', 'normally');
    const red = await cssColour(terminal, 'var(--mantine-color-red-text)');
    expect(await computedColour(ended)).not.toBe(red);
    expect(await computedColour(ended)).toBe(
      await cssColour(terminal, 'var(--mantine-color-dimmed)'),
    );
    const tab = terminal.getByRole('tab', { name: `root@${host}` }).locator('p');
    expect(await computedColour(tab)).not.toBe(red);
    await terminal.close();
  });

  test('Session Recordings lists it and the player plays, seeks and downloads it', async () => {
    test.setTimeout(90_000);
    await page.getByRole('navigation').getByRole('link', { name: 'Session Recordings' }).click();
    await expect(page).toHaveURL(/\/web\/cluster\/[^/]+\/recordings/);
    const table = page.getByRole('table', { name: 'Session Recordings' });
    const recording = table.getByRole('row').filter({ hasText: host }).first();
    await expect(recording).toBeVisible();
    // The description is login@host, the login has a column, the count is singular.
    await expect(cell(recording, 'Description')).toContainText(`root@${host}`);
    await expect(cell(recording, 'Login')).toHaveText('root');
    await expect(page.getByRole('main').getByText('1 recording', { exact: true })).toBeVisible();
    const listed = (await cell(recording, 'Duration').innerText()).trim();
    // At least the 17 s of sleeps in the session; more on a busy machine, but not minutes.
    expect(listed).toMatch(/^00:[0-5]\d$/);
    expect(Number(listed.slice(3))).toBeGreaterThanOrEqual(17);
    await recording.getByRole('link', { name: `Play recording of ${host}` }).click();
    await expect(page).toHaveURL(
      /\/web\/cluster\/[^/]+\/session\/[^/?]+\?recordingType=ssh&durationMs=\d+/,
    );
    // The same session lasts the same, to the second, in the list and in the player.
    await expect(page.getByTestId('player-time')).toHaveText(new RegExp(` / ${listed}$`));

    // Real time is the default; with Skip idle chosen, idle gaps are shortened and it plays
    // through to the last phase quickly.
    const skipIdle = page.getByRole('checkbox', { name: 'Skip idle' });
    await expect(skipIdle).not.toBeChecked();
    await skipIdle.check();
    await expect.poll(() => playerScreen(page), { timeout: 20_000 }).toContain('charlie-42');
    await expect(page.getByRole('button', { name: 'Play' })).toBeVisible({ timeout: 20_000 });

    // The recording itself says when each phase began: a busy machine starts the shell later,
    // but each phase lasts its 6 s of sleep at least. Seeks go to the middle of a phase.
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
    const shownAt = (word: string) => {
      const event = output.find(([, kind, data]) => kind === 'o' && data.includes(word));
      expect(event, word).toBeDefined();
      return Math.round(event![0] * 1000);
    };
    const [alphaMs, bravoMs, charlieMs] = [
      shownAt('alpha-42'),
      shownAt('bravo-42'),
      shownAt('charlie-42'),
    ];
    expect(bravoMs - alphaMs).toBeGreaterThanOrEqual(5_900);
    expect(charlieMs - bravoMs).toBeGreaterThanOrEqual(5_900);

    // Seek into the middle phase: bravo is on screen and alpha was cleared.
    const slider = page.getByRole('slider', { name: 'Playback position' });
    const max = Number(await slider.getAttribute('max'));
    expect(max).toBeGreaterThan(charlieMs);
    const midBravo = bravoMs + 3_000;
    await slider.fill(String(midBravo));
    await expect.poll(() => playerScreen(page)).toContain('bravo-42');
    const screen = await playerScreen(page);
    expect(screen).not.toContain('alpha-42');
    expect(screen).not.toContain('charlie-42');
    const second = Math.floor(midBravo / 1000);
    await expect(page.getByTestId('player-time')).toHaveText(
      new RegExp(`^00:${String(second).padStart(2, '0')} / 00:\\d\\d$`),
    );

    // Backward into the first phase, then play through to the end.
    await slider.fill(String(alphaMs + 3_000));
    await expect.poll(() => playerScreen(page)).toContain('alpha-42');
    await page.getByRole('button', { name: 'Play' }).click();
    await expect.poll(() => playerScreen(page), { timeout: 20_000 }).toContain('charlie-42');

    expect(output.at(-1)![0]).toBeGreaterThan(12);
  });

  test('at 420 px wide, Session Recordings keeps the description, Play and the duration whole', async () => {
    await page.setViewportSize({ width: 420, height: 800 });
    try {
      await page.goto(page.url().replace(/\/session\/.*$/, '/recordings'));
      const table = page.getByRole('table', { name: 'Session Recordings' });
      const recording = table.getByRole('row').filter({ hasText: host }).first();
      const play = recording.getByRole('link', { name: `Play recording of ${host}` });
      await expect(play).toBeVisible();
      // Login, users and host are in the description already: they give way.
      await expect(table.getByRole('columnheader', { name: 'Login' })).toBeHidden();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        420,
      );
      for (const element of [play, cell(recording, 'Duration')]) {
        const box = (await element.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(420);
      }
      await expect(cell(recording, 'Duration')).toHaveText(/^\d\d:\d\d$/);
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
  });

  test('a session with a join and a resize: the player marks both, plays it in real time, goes fullscreen, and follows the theme', async () => {
    test.setTimeout(120_000);
    const context = page.context();
    // The player is a full page, without the navigation: back to the console first.
    await page.goto('/web');
    await page.getByRole('navigation').getByRole('link', { name: 'Servers' }).click();
    const server = page.getByRole('main').getByRole('row').filter({ hasText: host });
    await server.getByRole('button', { name: /^Connect to / }).click();
    const [terminal] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('menuitem', { name: 'root', exact: true }).click(),
    ]);
    await expectConnected(terminal);
    // Three seconds of silence between two words, then a resize of the typist's terminal. The
    // first word comes 2 s in, so the page's word watcher (started after the player opens) is
    // surely running before it is drawn: a word already on screen counts from the watcher's start.
    await runInTerminal(
      terminal,
      'echo zero; sleep 2; echo one-$((1+1)); sleep 3; echo two-$((2+2))',
    );
    await expectOnScreen(terminal, 'two-4');
    await terminal.setViewportSize({ width: 900, height: 500 });
    // The owner joins their own session again from Active Sessions, as a peer.
    await page.getByRole('navigation').getByRole('link', { name: 'Active Sessions' }).click();
    const live = page.getByRole('main').getByRole('row').filter({ hasText: host });
    await live.getByRole('button', { name: `Join session on ${host}` }).click();
    const [joined] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('menuitem', { name: 'As a peer (full input)' }).click(),
    ]);
    await expectConnected(joined);
    await expectOnScreen(terminal, 'joined as peer]');
    // A shell that exits non-zero is a failure, shown in red (unlike the first session's `exit`).
    await runInTerminal(terminal, 'exit 3');
    const ended = terminal.getByRole('status').filter({ hasText: 'disconnected:' });
    await expect(ended).toHaveText('disconnected: exited with code 3');
    await expect(ended).toHaveAttribute('data-ended', 'failed');
    expect(await computedColour(ended)).toBe(
      await cssColour(terminal, 'var(--mantine-color-red-text)'),
    );
    await joined.close();
    await terminal.close();

    await page.getByRole('navigation').getByRole('link', { name: 'Session Recordings' }).click();
    await expect(page.getByRole('main').getByText('2 recordings', { exact: true })).toBeVisible();
    const newest = page
      .getByRole('table', { name: 'Session Recordings' })
      .getByRole('row')
      .filter({ hasText: host })
      .first();
    // From the player's first frame, the page notes when each word is drawn (watchWords): on a
    // new document by the init script, after a move inside the app by the evaluate.
    const words = ['one-2', 'two-4'];
    await page.addInitScript(watchWords, words);
    await newest.getByRole('link', { name: `Play recording of ${host}` }).click();
    await page.evaluate(watchWords, words);

    // Real time by default: the 3 s silence between the words takes about 3 s to play.
    await expect
      .poll(() => page.evaluate(() => (window as WordTimesWindow).wordTimes?.length ?? 0), {
        timeout: 30_000,
      })
      .toBe(2);
    // Both words were drawn (the poll above); NaN would fail the checks below, not pass them.
    const [one = NaN, two = NaN] = await page.evaluate(
      () => (window as WordTimesWindow).wordTimes!,
    );
    expect(two - one).toBeGreaterThan(2_500);
    expect(two - one).toBeLessThan(6_000);
    await expect(page.getByRole('checkbox', { name: 'Skip idle' })).not.toBeChecked();

    // The timeline marks the resize, then the join, in that order along the track.
    const markers = page.getByRole('group', { name: 'Timeline markers' });
    const resize = markers.getByRole('button', { name: /^Resized to \d+x\d+ at \d\d:\d\d$/ });
    const join = markers.getByRole('button', { name: /joined \(peer\) at \d\d:\d\d$/ });
    await expect(resize.first()).toBeVisible();
    await expect(join).toBeVisible();
    const track = (await page.getByRole('slider', { name: 'Playback position' }).boundingBox())!;
    const resizeBox = (await resize.first().boundingBox())!;
    const joinBox = (await join.boundingBox())!;
    expect(resizeBox.x).toBeGreaterThan(track.x);
    expect(joinBox.x + joinBox.width).toBeLessThan(track.x + track.width);
    expect(joinBox.x).toBeGreaterThan(resizeBox.x);

    // Fullscreen puts the whole player (terminal and controls) in fullscreen, and back.
    await page.getByRole('button', { name: 'Fullscreen', exact: true }).click();
    await expect
      .poll(() => page.evaluate(() => document.fullscreenElement?.getAttribute('data-testid')))
      .toBe('player');
    await page.getByRole('button', { name: 'Exit fullscreen' }).click();
    await expect.poll(() => page.evaluate(() => document.fullscreenElement)).toBeNull();

    // The timeline's colours are the theme's, in light and in dark.
    const slider = page.getByRole('slider', { name: 'Playback position' });
    const accent = () => slider.evaluate((el) => getComputedStyle(el).accentColor);
    const joinColour = () => join.evaluate((el) => getComputedStyle(el).backgroundColor);
    const lightPrimary = await cssColour(page, 'var(--mantine-primary-color-filled)');
    expect(await accent()).toBe(lightPrimary);
    expect(await joinColour()).toBe(await backgroundOf(page, 'var(--mantine-color-teal-filled)'));
    await page.evaluate(() => localStorage.setItem('grv_teleport_ui_theme', 'dark'));
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');
    await expect(join).toBeVisible();
    const darkPrimary = await cssColour(page, 'var(--mantine-primary-color-filled)');
    expect(darkPrimary).not.toBe(lightPrimary);
    expect(await accent()).toBe(darkPrimary);
    expect(await joinColour()).toBe(await backgroundOf(page, 'var(--mantine-color-teal-filled)'));
    await page.evaluate(() => localStorage.setItem('grv_teleport_ui_theme', 'light'));
  });

  test('postern verify names a flipped byte, and the player plays up to the damage and says so', async () => {
    test.setTimeout(120_000);
    expect(postern(server, 'verify', 'recordings')).toMatch(/^Recordings OK: 2 verified\.$/m);
    // The first session's recording: the one that shows 'charlie-42'.
    const dir = path.join(server.dataDir, 'recordings');
    const casts = (await readdir(dir)).filter((name) => name.endsWith('.cast.gz'));
    let sid = '';
    for (const name of casts) {
      if (gunzipSync(await readFile(path.join(dir, name))).includes('charlie-42'))
        sid = name.slice(0, -'.cast.gz'.length);
    }
    expect(sid).not.toBe('');
    // A byte flipped in the chunk that holds 'charlie-42': alpha and bravo stay playable.
    const chunks = (await readFile(path.join(dir, `${sid}.chunks.jsonl`), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { i: number; gz: number; length: number; t: number });
    const castFile = path.join(dir, `${sid}.cast.gz`);
    const cast = await readFile(castFile);
    const charlie = chunks.find((chunk) =>
      gunzipSync(cast.subarray(chunk.gz, chunk.gz + chunk.length)).includes('charlie-42'),
    )!;
    expect(charlie.t).toBeGreaterThan(10);
    const at = charlie.gz + Math.floor(charlie.length / 2);
    cast[at] = cast[at]! ^ 0xff;
    await writeFile(castFile, cast);

    const verify = spawnSync(
      process.execPath,
      [posternBin, 'verify', 'recordings', sid, '--data-dir', server.dataDir],
      { encoding: 'utf8' },
    );
    expect(verify.status).toBe(1);
    expect(verify.stdout).toContain(
      `Recording ${sid} DAMAGED: chunk ${charlie.i} at byte ${charlie.gz} of ${sid}.cast.gz`,
    );

    await page.goto(page.url().replace(/\/session\/[^/?]+.*$/, `/session/${sid}`));
    await page.getByRole('checkbox', { name: 'Skip idle' }).check();
    const damaged = page.getByTestId('player-damaged');
    await expect(damaged).toHaveText(
      /^This recording is damaged after 00:\d\d; it plays up to there\.$/,
      { timeout: 20_000 },
    );
    await expect.poll(() => playerScreen(page), { timeout: 20_000 }).toContain('bravo-42');
    await expect(page.getByRole('button', { name: 'Play' })).toBeVisible({ timeout: 20_000 });
    expect(await playerScreen(page)).not.toContain('charlie-42');
    await expect(page.getByRole('alert')).toHaveCount(0);
  });
});

/** A row's cell under the column with this header. */
function cell(row: Locator, header: string): Locator {
  return row.locator('td').nth(columnIndex.get(header) ?? -1);
}
const columnIndex = new Map(
  ['Type', 'Description', 'Login', 'Users', 'Hostname', 'Created', 'Duration'].map((h, i) => [
    h,
    i,
  ]),
);

/** The colour a CSS colour (a theme variable) resolves to on this page. */
async function cssColour(page: Page, colour: string): Promise<string> {
  return page.evaluate((value) => {
    const probe = document.createElement('span');
    probe.style.color = value;
    document.body.append(probe);
    const resolved = getComputedStyle(probe).color;
    probe.remove();
    return resolved;
  }, colour);
}

/** The background a CSS colour resolves to on this page (as `rgb(...)`). */
async function backgroundOf(page: Page, colour: string): Promise<string> {
  return page.evaluate((value) => {
    const probe = document.createElement('span');
    probe.style.background = value;
    document.body.append(probe);
    const resolved = getComputedStyle(probe).backgroundColor;
    probe.remove();
    return resolved;
  }, colour);
}

const computedColour = (element: Locator) => element.evaluate((el) => getComputedStyle(el).color);

/** The player's screen, one line per row (xterm's DOM renderer in headless Chromium). */
type WordTimesWindow = Window & { wordTimes?: number[] };

/**
 * An init script: notes in `window.wordTimes` the time (ms, page clock) each word first appears
 * on the player's screen, in order, looking every animation frame for a minute. Polling the screen
 * from the test instead adds a round trip per look, which on a loaded machine made the first word
 * seem late and the silence after it short.
 */
function watchWords(words: string[]): void {
  // Once per document: the init script may have started it already.
  if ((window as WordTimesWindow).wordTimes) return;
  const times: number[] = [];
  (window as WordTimesWindow).wordTimes = times;
  const deadline = performance.now() + 60_000;
  const look = () => {
    const now = performance.now();
    const rows = document.querySelectorAll('.xterm-rows > div');
    const screen = Array.from(rows, (row) => row.textContent ?? '').join('\n');
    while (times.length < words.length && screen.includes(words[times.length]!)) times.push(now);
    if (times.length < words.length && now < deadline) requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}
