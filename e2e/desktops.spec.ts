import type { ChildProcess } from 'node:child_process';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { startXvnc, type RunningXvnc } from '../packages/server/src/testing/xvnc.testkit.js';
import {
  blue,
  cluster,
  cornerPixel,
  createFromYaml,
  desktopAuditEvents,
  desktopRole,
  desktopRow,
  desktopSessionPath,
  expectCanvasColour,
  expectDesktopsListed,
  expectWindow,
  hex,
  orange,
  playerCanvas,
  removeAll,
  screenPosition,
  shared,
  toolbar,
  expectEndedByLock,
  type Rgb,
  playDesktopRecording,
  typeIntoXterm,
} from './support/desktops.js';
import { postern, uniqueUser } from './support/identity.js';
import { signIn } from './support/session.js';

// VNC desktops in the browser against the shared server and a REAL TigerVNC Xvnc (VNC
// Authentication with the resource's password): the Desktops page lists the desktop, Connect
// opens it as a login, noVNC draws the desktop's known colour and types into an xterm on it; the
// session is recorded and its player draws the same colour; what is copied on the desktop reaches
// the browser (and the audit log) only for a role that shares the clipboard; a lock ends the open
// session with its message.

const vncPassword = 'vnc-e2e-7';
const login = 'vncuser';

let suite: string;
let desktopName: string;
let roleName: string;
let quietRoleName: string;
let userName: string;
let quietName: string;
let xvnc: RunningXvnc;

const role = (name: string, options = '') => desktopRole(name, suite, login, options);

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

const sessionPath = () => desktopSessionPath(desktopName, login);

/** Waits until noVNC's canvas shows `colour` in the corner. */
const expectScreenColour = (page: Page, colour: Rgb) => expectCanvasColour(page, colour);

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

test.describe.serial('desktops', () => {
  let context: BrowserContext;
  let quietContext: BrowserContext;
  let page: Page;
  let bearer: string;
  let lockName: string | undefined;

  /** Audit events of one type, through the API (the user's roles may read events). */
  const auditEvents = (type: string) => desktopAuditEvents(context, bearer, type, desktopName);

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
    await expectDesktopsListed(context, bearer, [desktopName]);
    page = await context.newPage();
  });

  test.afterAll(async () => {
    await context?.close();
    await quietContext?.close();
    await xvnc?.stop();
    const refs = [`desktop/${desktopName}`, `role/${roleName}`, `role/${quietRoleName}`];
    if (lockName) refs.push(`lock/${lockName}`);
    removeAll(refs);
  });

  test('Connect opens the desktop: noVNC draws its screen and types into an xterm on it', async () => {
    const title = `typing-${suite}`;
    xvnc.run('xterm', ['-geometry', '80x24+0+0', '-T', title, '-e', 'sh'], { cwd: xvnc.dir });
    await expectWindow(xvnc, title);

    await page.goto(`/web/cluster/${cluster}/desktops`);
    await expect(page.getByRole('heading', { name: 'Desktops', level: 2 })).toBeVisible();
    const row = desktopRow(page, desktopName);
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
    const { canvas, position } = await screenPosition(session, 100, 100);
    await canvas.click({ position });
    await typeIntoXterm(session, xvnc.dir);

    await bar.getByRole('button', { name: 'Disconnect' }).click();
    await expect(session.getByTestId('desktop-ended-reason')).toHaveText('you disconnected');
    await session.close();
  });

  test('Session Recordings lists it as a desktop recording, and the player draws the same screen', async () => {
    const sid = await playDesktopRecording(page, desktopName);
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
      .poll(() => cornerPixel(page, playerCanvas), {
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
    await expectEndedByLock(session, message);
    await session.close();
  });
});
