import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { startXvnc, type RunningXvnc } from '../packages/server/src/testing/xvnc.testkit.js';
import { postern, uniqueUser } from './support/identity.js';
import type { RunningPostern } from './support/postern-process.js';
import { signIn } from './support/session.js';

// VNC desktops in the browser against the shared server and a REAL TigerVNC Xvnc (VNC
// Authentication with the resource's password): the Desktops page lists the desktop, Connect
// opens it as a login, noVNC draws the desktop's known colour and types into an xterm on it; the
// session is recorded and its player draws the same colour; what is copied on the desktop reaches
// the browser (and the audit log) only for a role that shares the clipboard; a lock ends the open
// session with its message.

const cluster = 'e2e-cluster';
const shared = () => ({ dataDir: process.env.POSTERN_E2E_DATA_DIR! }) as RunningPostern;
const api = (rest: string) => `/v1/webapi/sites/${cluster}/${rest}`;
const vncPassword = 'vnc-e2e-7';
const login = 'vncuser';
type Rgb = [number, number, number];
const orange: Rgb = [0xff, 0x80, 0x00];
const blue: Rgb = [0x00, 0x80, 0xff];
const hex = ([r, g, b]: Rgb) =>
  `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`;

let suite: string;
let desktopName: string;
let roleName: string;
let quietRoleName: string;
let userName: string;
let quietName: string;
let xvnc: RunningXvnc;

const role = (name: string, options = '') => `kind: role
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

const desktop = () => `kind: desktop
version: v3
metadata:
  name: ${desktopName}
  description: Xvnc (e2e)
  labels: {suite: ${suite}, env: e2e}
spec:
  addr: 127.0.0.1:${xvnc.port}
  protocol: vnc
  os: Linux
  vnc_password: ${vncPassword}
`;

async function createFromYaml(yaml: string) {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-e2e-desktop-'));
  try {
    await writeFile(path.join(dir, 'resource.yaml'), yaml);
    postern(shared(), 'create', '-f', path.join(dir, 'resource.yaml'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const sessionPath = () => `/web/cluster/${cluster}/desktops/${desktopName}/${login}`;
const toolbar = (page: Page) => page.locator('header[aria-label="Desktop toolbar"]');

/** The pixel near the bottom-right corner of a canvas (the root window: no xterm there). */
async function cornerPixel(page: Page, selector: string): Promise<Rgb | string> {
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

const screenCanvas = '[data-testid="desktop-screen"] canvas';

/** Waits until noVNC's canvas shows `colour` in the corner. */
async function expectScreenColour(page: Page, colour: Rgb) {
  await expect
    .poll(() => cornerPixel(page, screenCanvas), { message: `the desktop shows ${hex(colour)}` })
    .toEqual(colour);
}

/** Opens the session page (a tab of its own) and waits until noVNC is connected. */
async function openSession(context: BrowserContext): Promise<{ page: Page; frames: Buffer[] }> {
  const page = await context.newPage();
  const frames = recordFrames(page);
  await page.goto(sessionPath());
  await expect(toolbar(page).getByText('Connected', { exact: true })).toBeVisible();
  return { page, frames };
}

/** Every binary frame the page receives on its desktop socket (RFB from the proxy). */
function recordFrames(page: Page): Buffer[] {
  const frames: Buffer[] = [];
  page.on('websocket', (socket) => {
    if (!socket.url().includes('/connect/ws')) return;
    socket.on('framereceived', ({ payload }) => {
      if (typeof payload !== 'string') frames.push(payload);
    });
  });
  return frames;
}

/** Makes `text` the desktop's clipboard, as copying in a desktop application would. */
function copyOnDesktop(text: string): ChildProcess {
  const xclip = xvnc.run('xclip', ['-selection', 'clipboard', '-quiet'], {
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  xclip.stdin?.end(text);
  return xclip;
}

/** Waits until an X client's window of this title is on the screen. */
async function expectWindow(title: string) {
  await expect
    .poll(
      // Until the client has made its window, xwininfo fails ("No window with name").
      () => xvnc.exec('xwininfo', ['-name', title]).then(String, (error: Error) => error.message),
      { message: `the ${title} window` },
    )
    .toContain('IsViewable');
}

test.describe.serial('desktops', () => {
  let context: BrowserContext;
  let quietContext: BrowserContext;
  let page: Page;
  let bearer: string;
  let lockName: string | undefined;

  /** Audit events of one type, through the API (the user's roles may read events). */
  async function auditEvents(type: string) {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const response = await context.request.get(
      api(`events/search?from=${from}&to=${to}&include=${type}&limit=500`),
      { headers: { Authorization: `Bearer ${bearer}` } },
    );
    expect(response.ok(), await response.text()).toBe(true);
    return ((await response.json()).events as Record<string, unknown>[]).filter(
      (event) => event.desktop_name === desktopName,
    );
  }

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    suite = uniqueUser('desk');
    desktopName = `xvnc-${suite}`;
    roleName = `desktop-${suite}`;
    quietRoleName = `desktop-noclip-${suite}`;
    userName = uniqueUser('dora');
    quietName = uniqueUser('quinn');
    xvnc = await startXvnc({ password: vncPassword, width: 640, height: 480 });
    // The known colour: the root window, wherever no window covers it.
    await xvnc.exec('xsetroot', ['-solid', hex(orange)]);
    // One command for all three (each start of the binary costs seconds on a busy machine).
    await createFromYaml(
      [
        role(roleName),
        role(quietRoleName, '  options: {desktop_clipboard: false}\n'),
        desktop(),
      ].join('---\n'),
    );
    const newContext = async () => {
      const created = await browser.newContext({
        baseURL: process.env.POSTERN_E2E_URL,
        ignoreHTTPSErrors: true,
      });
      await created.grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: new URL(process.env.POSTERN_E2E_URL!).origin,
      });
      return created;
    };
    context = await newContext();
    quietContext = await newContext();
    bearer = String((await signIn(context, [roleName], userName)).bearerToken);
    await signIn(quietContext, [quietRoleName], quietName);
    // The roles and the desktop reached storage from the command line; the server's watch brings them.
    await expect
      .poll(async () => {
        const response = await context.request.get(api('desktops'), {
          headers: { Authorization: `Bearer ${bearer}` },
        });
        if (!response.ok()) return [];
        return ((await response.json()).items as { name: string }[]).map((item) => item.name);
      })
      .toEqual([desktopName]);
    page = await context.newPage();
  });

  test.afterAll(async () => {
    await context?.close();
    await quietContext?.close();
    await xvnc?.stop();
    const refs = [`desktop/${desktopName}`, `role/${roleName}`, `role/${quietRoleName}`];
    if (lockName) refs.push(`lock/${lockName}`);
    for (const ref of refs) {
      try {
        postern(shared(), 'rm', ref);
      } catch {
        // Never created: the setup failed before it.
      }
    }
  });

  test('Connect opens the desktop: noVNC draws its screen and types into an xterm on it', async () => {
    const title = `typing-${suite}`;
    xvnc.run('xterm', ['-geometry', '80x24+0+0', '-T', title, '-e', 'sh'], { cwd: xvnc.dir });
    await expectWindow(title);

    await page.goto(`/web/cluster/${cluster}/desktops`);
    await expect(page.getByRole('heading', { name: 'Desktops', level: 2 })).toBeVisible();
    const row = page
      .getByRole('main')
      .getByRole('row')
      .filter({ has: page.getByText(desktopName, { exact: true }) });
    await expect(row.getByText(`suite: ${suite}`, { exact: true })).toBeVisible();
    await row.getByRole('button', { name: `Connect to ${desktopName}` }).click();
    const [session] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('menuitem', { name: login, exact: true }).click(),
    ]);
    await expect(session).toHaveURL(new RegExp(`${sessionPath()}$`));
    const bar = toolbar(session);
    await expect(bar.getByRole('heading', { name: desktopName, level: 1 })).toBeVisible();
    await expect(bar.getByText('Connected', { exact: true })).toBeVisible();
    await expect(bar.getByText('Clipboard sharing on')).toBeVisible();
    await expectScreenColour(session, orange);

    // No window manager: keys go to the window under the pointer, so the click puts it on the
    // xterm (at 100,100 of the desktop's screen, wherever the canvas is scaled to).
    const canvas = session.locator(screenCanvas);
    const size = await canvas.evaluate((element: HTMLCanvasElement) => ({
      width: element.width,
      height: element.height,
    }));
    const box = (await canvas.boundingBox())!;
    await canvas.click({
      position: { x: (100 * box.width) / size.width, y: (100 * box.height) / size.height },
    });
    await session.keyboard.type('echo typed-$((6*7)) > typed.txt');
    await session.keyboard.press('Enter');
    const typed = path.join(xvnc.dir, 'typed.txt');
    await expect
      .poll(() => readFile(typed, 'utf8').catch(() => ''), { message: 'the file the xterm wrote' })
      .toBe('typed-42\n');

    await bar.getByRole('button', { name: 'Disconnect' }).click();
    await expect(session.getByTestId('desktop-ended-reason')).toHaveText('you disconnected');
    await session.close();
  });

  test('Session Recordings lists it as a desktop recording, and the player draws the same screen', async () => {
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
    // The session's start and end are in the audit log, the end naming this recording.
    const sid = /\/session\/([^/?]+)\?/.exec(page.url())![1]!;
    const ofSession = (events: Record<string, unknown>[]) =>
      events
        .filter((event) => (event.session_id ?? event.sid) === sid)
        .map(({ user, windows_user, recorded }) => ({ user, windows_user, recorded }));
    expect(ofSession(await auditEvents('windows.desktop.session.start'))).toEqual([
      { user: userName, windows_user: login, recorded: undefined },
    ]);
    expect(ofSession(await auditEvents('windows.desktop.session.end'))).toEqual([
      { user: userName, windows_user: login, recorded: true },
    ]);
    const player = page.getByRole('img', { name: 'Recorded desktop' });
    await expect(player).toBeVisible();
    await expect
      .poll(() => cornerPixel(page, '[data-testid="player-desktop"]'), {
        message: 'the player shows the desktop colour',
      })
      .toEqual(orange);
  });

  test('what is copied on the desktop reaches the browser only where the role shares the clipboard, audited', async () => {
    const [sharing, quiet] = await Promise.all([openSession(context), openSession(quietContext)]);
    await expect(toolbar(sharing.page).getByText('Clipboard sharing on')).toBeVisible();
    await expect(toolbar(quiet.page).getByText('Clipboard sharing off')).toBeVisible();
    const text = `copied-on-desktop-${suite}`;
    const received = (frames: Buffer[]) =>
      frames.some((frame) => frame.includes(Buffer.from(text, 'latin1')));

    const xclip = copyOnDesktop(text);
    try {
      // Through the proxy, as RFB's ServerCutText, to noVNC, which the page puts on the clipboard.
      await expect.poll(() => received(sharing.frames), { message: 'the cut text' }).toBe(true);
      await expect
        .poll(() => sharing.page.evaluate(() => navigator.clipboard.readText()), {
          message: 'the browser clipboard',
        })
        .toBe(text);
      // The audit says who received how much (never what).
      await expect
        .poll(async () =>
          (await auditEvents('desktop.clipboard.receive')).map((event) => [
            event.user,
            event.length,
          ]),
        )
        .toContainEqual([userName, text.length]);

      // The same copy went to both sessions at once; a screen change made after it reaches the
      // quiet one later on its stream, so when that shows, the text would have too.
      await xvnc.exec('xsetroot', ['-solid', hex(blue)]);
      await expectScreenColour(quiet.page, blue);
      expect(received(quiet.frames)).toBe(false);
      expect(
        (await auditEvents('desktop.clipboard.receive')).filter(
          (event) => event.user === quietName,
        ),
      ).toEqual([]);
    } finally {
      xclip.kill();
      await xvnc.exec('xsetroot', ['-solid', hex(orange)]);
    }
    await sharing.page.close();
    await quiet.page.close();
  });

  test('a lock on the user ends the open session with its message', async () => {
    const { page: session } = await openSession(context);
    const message = `desktop review ${suite}`;
    const output = postern(shared(), 'locks', 'add', '--user', userName, '--message', message);
    lockName = /Created lock (\S+)/.exec(output)?.[1];
    await expect(session.getByRole('alert')).toContainText('Disconnected');
    await expect(session.getByTestId('desktop-ended-reason')).toHaveText(`locked: ${message}`);
    await expect(toolbar(session).getByText('Disconnected', { exact: true })).toBeVisible();
    await session.close();
  });
});
