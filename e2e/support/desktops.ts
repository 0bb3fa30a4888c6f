import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, type BrowserContext, type Page } from '@playwright/test';
import type { RunningXvnc } from '../../packages/server/src/testing/xvnc.testkit.js';
import { postern } from './identity.js';
import { cluster, shared, siteApi as api } from './shared-server.js';

// What the desktop specs (VNC and RDP) share: the shared server, the role and resource YAML,
// the session page's toolbar and noVNC's canvas, pixels and colours, X windows, the audit log.

export { cluster, shared, api };
export { createFromYaml } from './create-resources.js';

export type Rgb = [number, number, number];
export const orange: Rgb = [0xff, 0x80, 0x00];
export const blue: Rgb = [0x00, 0x80, 0xff];
export const hex = ([r, g, b]: Rgb) =>
  `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;

/** A role for the desktops labelled `suite: <suite>` as `login`, reading sessions and events. */
export const desktopRole = (name: string, suite: string, login: string, options = '') => `kind: role
version: v7
metadata:
  name: ${name}
spec:
${options}  allow:
    windows_desktop_labels: {suite: ${suite}}
    windows_desktop_logins: [${login}]
    rules:
      - resources: [session, event]
        verbs: [list, read]
  deny: {}
`;

/** `postern rm` of each reference, ignoring those never created (the setup failed before). */
export function removeAll(refs: string[]) {
  for (const ref of refs) {
    try {
      postern(shared(), 'rm', ref);
    } catch {
      // Never created.
    }
  }
}

const authorized = (bearer: string) => ({ headers: { Authorization: `Bearer ${bearer}` } });

/**
 * Waits until the user sees exactly these desktops: resources created from the command line
 * reach the server through its storage watch.
 */
export async function expectDesktopsListed(
  context: BrowserContext,
  bearer: string,
  names: string[],
) {
  await expect
    .poll(async () => {
      const response = await context.request.get(api('desktops'), authorized(bearer));
      if (!response.ok()) return [];
      return ((await response.json()).items as { name: string }[]).map((item) => item.name);
    })
    .toEqual(names);
}

/** Audit events of one type on one desktop, through the API (the user's roles read events). */
export async function desktopAuditEvents(
  context: BrowserContext,
  bearer: string,
  type: string,
  desktopName: string,
) {
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const to = new Date(Date.now() + 60_000).toISOString();
  const response = await context.request.get(
    api(`events/search?from=${from}&to=${to}&include=${type}&limit=500`),
    authorized(bearer),
  );
  expect(response.ok(), await response.text()).toBe(true);
  return ((await response.json()).events as Record<string, unknown>[]).filter(
    (event) => event.desktop_name === desktopName,
  );
}

export const desktopSessionPath = (desktopName: string, login: string) =>
  `/web/cluster/${cluster}/desktops/${desktopName}/${login}`;
export const toolbar = (page: Page) => page.locator('header[aria-label="Desktop toolbar"]');

/**
 * After a lock on the user: the desktop's socket ends with the lock's message. The console's
 * status check (every 15 s) may hear of the lock first and sign the user out, to a sign-in page
 * that says the same; on a slow machine that race is real, and either way the user reads the
 * lock's message.
 */
export async function expectEndedByLock(session: Page, message: string): Promise<void> {
  // By name: the page's notice of the lock is an alert too, and may come first.
  const ended = session.getByRole('alert', { name: 'Disconnected' });
  const signedOut = session.getByRole('region', { name: 'Access locked' });
  await expect(ended.or(signedOut).first()).toBeVisible();
  if (await ended.isVisible()) {
    await expect(session.getByTestId('desktop-ended-reason')).toHaveText(`locked: ${message}`);
    await expect(toolbar(session).getByText('Disconnected', { exact: true })).toBeVisible();
  } else {
    await expect(session).toHaveURL(/\/web\/login/);
    await expect(signedOut).toContainText(`Access locked: ${message}`);
  }
}
export const screenCanvas = '[data-testid="desktop-screen"] canvas';
export const playerCanvas = '[data-testid="player-desktop"]';

/** The Desktops page's row of one desktop. */
export function desktopRow(page: Page, desktopName: string) {
  return page
    .getByRole('main')
    .getByRole('row')
    .filter({ has: page.getByText(desktopName, { exact: true }) });
}

/** The pixel near the bottom-right corner of a canvas (the root window: no xterm there). */
export async function cornerPixel(page: Page, selector: string): Promise<Rgb | string> {
  return page.evaluate((css) => {
    const canvas = document.querySelector<HTMLCanvasElement>(css);
    if (!canvas) return 'no canvas';
    if (canvas.width < 20 || canvas.height < 20) return `a ${canvas.width}×${canvas.height} canvas`;
    const context = canvas.getContext('2d');
    if (!context) return 'no 2d context';
    const [r, g, b] = context.getImageData(canvas.width - 10, canvas.height - 10, 1, 1).data;
    return [r!, g!, b!] as [number, number, number];
  }, selector);
}

/** Waits until noVNC's canvas (or the player's) shows `colour` in the corner. */
export async function expectCanvasColour(page: Page, colour: Rgb, selector = screenCanvas) {
  await expect
    .poll(() => cornerPixel(page, selector), { message: `the canvas shows ${hex(colour)}` })
    .toEqual(colour);
}

/** Where the desktop's point (x, y) is on noVNC's canvas, wherever the canvas is scaled to. */
export async function screenPosition(page: Page, x: number, y: number) {
  const canvas = page.locator(screenCanvas);
  const size = await canvas.evaluate((element: HTMLCanvasElement) => ({
    width: element.width,
    height: element.height,
  }));
  const box = (await canvas.boundingBox())!;
  return {
    canvas,
    position: { x: (x * box.width) / size.width, y: (y * box.height) / size.height },
  };
}

/** Waits until an X client's window of this title is on the X server's screen. */
export async function expectWindow(xvnc: RunningXvnc, title: string) {
  await expect
    .poll(
      // Until the client has made its window, xwininfo fails ("No window with name").
      () => xvnc.exec('xwininfo', ['-name', title]).then(String, (error: Error) => error.message),
      { message: `the ${title} window` },
    )
    .toContain('IsViewable');
}

/** Types a shell line into the xterm with focus, and waits for the file it writes in `dir`. */
export async function typeIntoXterm(session: Page, dir: string) {
  await session.keyboard.type('echo typed-$((6*7)) > typed.txt');
  await session.keyboard.press('Enter');
  const typed = path.join(dir, 'typed.txt');
  await expect
    .poll(() => readFile(typed, 'utf8').catch(() => ''), { message: 'the file the xterm wrote' })
    .toBe('typed-42\n');
}

/** Opens the player of the desktop's recording from Session Recordings; returns its sid. */
export async function playDesktopRecording(page: Page, desktopName: string): Promise<string> {
  await page.goto(`/web/cluster/${cluster}/recordings`);
  const recording = page
    .getByRole('table', { name: 'Session Recordings' })
    .getByRole('row')
    .filter({ hasText: desktopName })
    .first();
  await expect(recording).toBeVisible();
  await expect(recording.getByRole('img', { name: 'Desktop session' })).toBeVisible();
  await recording.getByRole('link', { name: `Play recording of ${desktopName}` }).click();
  await expect(page).toHaveURL(
    new RegExp(`/web/cluster/${cluster}/session/[^/?]+\\?recordingType=desktop&durationMs=\\d+`),
  );
  return /\/session\/([^/?]+)\?/.exec(page.url())![1]!;
}
