import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { startXrdp, type RunningXrdp } from '../packages/server/src/testing/xrdp.testkit.js';
import {
  cluster,
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
  playDesktopRecording,
  typeIntoXterm,
} from './support/desktops.js';
import { postern, uniqueUser } from './support/identity.js';
import { signIn } from './support/session.js';

// RDP desktops in the browser against the shared server and a REAL xrdp (in front of a real
// Xvnc): the proxy signs in over RDP with the login's stored password and serves the decoded
// screen to noVNC as VNC. The Desktops page lists the desktop as RDP on Windows, Connect opens
// it as a login, noVNC draws the desktop's known colour and types into an xterm on it (keysyms
// become US scancodes in the proxy); the session is recorded, its player draws the same colour
// and the audit log has its start and end as RDP; a lock ends the open session with its message.

const rdpPassword = 'rdp-e2e-7';
const login = 'rdpuser';

let suite: string;
let desktopName: string;
let roleName: string;
let userName: string;
let xrdp: RunningXrdp;

const desktop = () => `kind: windows_desktop
version: v3
metadata:
  name: ${desktopName}
  description: xrdp (e2e)
  labels: {suite: ${suite}, env: e2e}
spec:
  addr: 127.0.0.1:${xrdp.port}
  protocol: rdp
  os: Windows
  rdp_passwords: {${login}: ${rdpPassword}}
`;

test.describe.serial('RDP desktops', () => {
  let context: BrowserContext;
  let page: Page;
  let bearer: string;
  let lockName: string | undefined;

  const auditEvents = (type: string) => desktopAuditEvents(context, bearer, type, desktopName);

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    suite = uniqueUser('rdp');
    desktopName = `xrdp-${suite}`;
    roleName = `desktop-rdp-${suite}`;
    userName = uniqueUser('rhea');
    xrdp = await startXrdp({ password: rdpPassword, width: 640, height: 480 });
    // The known colour: the root window, wherever no window covers it.
    await xrdp.xvnc.exec('xsetroot', ['-solid', hex(orange)]);
    await createFromYaml([desktopRole(roleName, suite, login), desktop()].join('---\n'));
    context = await browser.newContext({
      baseURL: process.env.POSTERN_E2E_URL,
      ignoreHTTPSErrors: true,
    });
    bearer = String((await signIn(context, [roleName], userName)).bearerToken);
    await expectDesktopsListed(context, bearer, [desktopName]);
    page = await context.newPage();
  });

  test.afterAll(async () => {
    await context?.close();
    await xrdp?.stop();
    const refs = [`desktop/${desktopName}`, `role/${roleName}`];
    if (lockName) refs.push(`lock/${lockName}`);
    removeAll(refs);
  });

  test('Connect opens the RDP desktop: noVNC draws its screen and types into an xterm on it', async () => {
    await page.goto(`/web/cluster/${cluster}/desktops`);
    await expect(page.getByRole('heading', { name: 'Desktops', level: 2 })).toBeVisible();
    const row = desktopRow(page, desktopName);
    await expect(row.getByText(`suite: ${suite}`, { exact: true })).toBeVisible();
    await expect(row.getByText('RDP', { exact: true })).toBeVisible();
    await expect(row.getByText('Windows', { exact: true })).toBeVisible();
    await row.getByRole('button', { name: `Connect to ${desktopName}` }).click();
    const [session] = await Promise.all([
      context.waitForEvent('page'),
      page.getByRole('menuitem', { name: login, exact: true }).click(),
    ]);
    await expect(session).toHaveURL(new RegExp(`${desktopSessionPath(desktopName, login)}$`));
    const bar = toolbar(session);
    await expect(bar.getByRole('heading', { name: desktopName, level: 1 })).toBeVisible();
    await expect(bar.getByText('Connected', { exact: true })).toBeVisible();
    await expectCanvasColour(session, orange);

    const title = `rdp-e2e-${suite}`;
    xrdp.xvnc.run('xterm', ['-geometry', '60x10+0+0', '-T', title, '-e', 'sh'], {
      cwd: xrdp.xvnc.dir,
    });
    await expectWindow(xrdp.xvnc, title);
    // No window manager: keys go to the window under the pointer. The pointer goes there (50,50
    // of the desktop's screen, wherever the canvas is scaled to) as an RDP mouse move; the click
    // also gives noVNC's canvas the browser's keyboard focus.
    const { canvas, position } = await screenPosition(session, 50, 50);
    await canvas.hover({ position });
    await canvas.click({ position });
    // Playwright types `$`, `(`, `*`, `)` and `>` without Shift (noVNC sends the keysyms alone);
    // the proxy sends each key's US scancode with Shift around it.
    await typeIntoXterm(session, xrdp.xvnc.dir);

    await bar.getByRole('button', { name: 'Disconnect' }).click();
    await expect(session.getByTestId('desktop-ended-reason')).toHaveText('you disconnected');
    await session.close();
  });

  test('the RDP session is a desktop recording the player draws, audited as RDP', async () => {
    const sid = await playDesktopRecording(page, desktopName);
    const ofSession = (events: Record<string, unknown>[]) =>
      events
        .filter((event) => (event.session_id ?? event.sid) === sid)
        .map(({ user, windows_user, proto, recorded }) => ({
          user,
          windows_user,
          proto,
          recorded,
        }));
    expect(ofSession(await auditEvents('windows.desktop.session.start'))).toEqual([
      { user: userName, windows_user: login, proto: 'rdp', recorded: undefined },
    ]);
    expect(ofSession(await auditEvents('windows.desktop.session.end'))).toEqual([
      { user: userName, windows_user: login, proto: 'rdp', recorded: true },
    ]);
    await expect(page.getByRole('img', { name: 'Recorded desktop' })).toBeVisible();
    await expectCanvasColour(page, orange, playerCanvas);
  });

  test('a lock on the user ends the open RDP session with its message', async () => {
    const session = await context.newPage();
    await session.goto(desktopSessionPath(desktopName, login));
    await expect(toolbar(session).getByText('Connected', { exact: true })).toBeVisible();
    const message = `rdp review ${suite}`;
    const output = postern(shared(), 'locks', 'add', '--user', userName, '--message', message);
    lockName = /Created lock (\S+)/.exec(output)?.[1];
    await expectEndedByLock(session, message);
    await session.close();
  });
});
