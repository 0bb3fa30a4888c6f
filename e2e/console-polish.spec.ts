import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { accountMenu, postern, uniqueUser } from './support/identity.js';
import { signIn } from './support/session.js';
import { expectConnected, expectOnScreen, runInTerminal, terminal } from './support/terminal.js';
import { cluster, shared } from './support/shared-server.js';

// The console shell: who is signed in, Console Settings, the cluster link, the side
// navigation, the spec's navigation rules and the small details, against the shared server.

/** A role that may log in as root on every server (the built-in one runs as root here). */
async function createRootRole(): Promise<string> {
  const name = uniqueUser('polish-root-');
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-polish-'));
  const file = path.join(dir, 'role.yaml');
  await writeFile(
    file,
    `kind: role
version: v7
metadata:
  name: ${name}
spec:
  allow:
    logins: [root]
    node_labels: {'*': '*'}
  deny: {}
`,
  );
  try {
    postern(shared(), 'create', '-f', file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return name;
}

/** The width the placeholder text needs, and the room the input gives it, in CSS pixels. */
function placeholderRoom(input: Locator) {
  return input.evaluate((el: HTMLInputElement) => {
    const style = getComputedStyle(el);
    const context = document.createElement('canvas').getContext('2d')!;
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const needed = context.measureText(el.placeholder).width;
    const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return { placeholder: el.placeholder, needed, room };
  });
}

const rowsStyle = (page: Page) =>
  page
    .locator('.xterm-rows')
    .first()
    .evaluate((rows) => {
      const style = getComputedStyle(rows);
      return { fontSize: style.fontSize, fontFamily: style.fontFamily };
    });

test.describe('the console shell', () => {
  test('the top bar shows who is signed in; Account Settings shows username, auth type, roles and logins', async ({
    page,
    context,
  }) => {
    const name = uniqueUser('zoe');
    postern(shared(), 'users', 'add', name, '--roles', 'access,auditor', '--logins', 'root,ubuntu');
    await signIn(context, ['access', 'auditor'], name);
    await page.goto('/web/account');

    const header = page.getByRole('banner');
    const menu = accountMenu(page);
    await expect(menu).toHaveAccessibleName(`Account: ${name}`);
    await expect(header.getByText(name, { exact: true })).toBeVisible();
    // The avatar holds the initial, in capitals.
    await expect(menu.locator('.mantine-Avatar-root')).toHaveText('Z');

    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { name: 'Profile' })).toBeVisible();
    await expect(main.getByRole('row', { name: /^Username/ })).toContainText(name);
    await expect(main.getByRole('row', { name: /^Authentication/ })).toContainText('Local user');
    await expect(main.getByRole('row', { name: /^Roles/ })).toHaveText('Rolesaccessauditor');
    await expect(main.getByRole('row', { name: /^Logins/ })).toHaveText('Loginsrootubuntu');
  });

  test('/web/login while signed in goes to /web, or to a redirect_uri on our origin', async ({
    page,
    context,
    baseURL,
  }) => {
    await signIn(context, ['editor']);
    await page.goto('/web/login');
    // The root route lands an editor on Manage Users.
    await expect(page).toHaveURL(/\/web\/users$/);
    await page.goto(`/web/login?redirect_uri=${encodeURIComponent(`${baseURL}/web/roles?x=1`)}`);
    await expect(page).toHaveURL(/\/web\/roles\?x=1$/);
    await page.goto(
      `/web/login?redirect_uri=${encodeURIComponent('https://evil.example/web/roles')}`,
    );
    await expect(page).toHaveURL(/\/web\/users$/);
    await expect(page.getByRole('heading', { name: 'Sign in to Postern' })).toHaveCount(0);
  });

  test('/web/cluster/{clusterId}, with or without a trailing slash, opens its Servers page', async ({
    page,
    context,
  }) => {
    await signIn(context, ['access']);
    for (const suffix of ['', '/']) {
      await page.goto(`/web/cluster/${cluster}${suffix}`);
      await expect(page).toHaveURL(new RegExp(`/web/cluster/${cluster}/nodes$`));
      await expect(page.getByRole('main').getByRole('heading', { name: 'Servers' })).toBeVisible();
    }
  });

  test('the side navigation: the spec’s categories and sections, an icon per item, one inset', async ({
    page,
    context,
  }) => {
    await signIn(context, ['editor', 'auditor', 'access']);
    await page.goto('/web/users');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    await expect(nav.getByRole('link', { name: 'Manage Users' })).toBeVisible();

    const groups = await nav
      .getByRole('group')
      .evaluateAll((els) =>
        els.map(
          (el) =>
            el.getAttribute('aria-label') ??
            document.getElementById(el.getAttribute('aria-labelledby') ?? '')?.textContent,
        ),
      );
    expect(groups).toEqual(['Resources', 'Access', 'Activity', 'Clusters']);
    await expect(nav.getByText('Management', { exact: true })).toBeVisible();

    const links = nav.getByRole('link');
    const count = await links.count();
    expect(count).toBeGreaterThanOrEqual(8);
    const iconLefts: number[] = [];
    for (let i = 0; i < count; i++) {
      const icon = links.nth(i).locator('svg');
      await expect(icon).toHaveCount(1);
      iconLefts.push(Math.round((await icon.boundingBox())!.x));
    }
    // Every item's icon starts at the same x, and so do the category and section headings.
    expect(new Set(iconLefts).size).toBe(1);
    const headingLeft = async (text: string) => {
      // The heading comes before any item of its group, and `Resources` is also an item's name.
      const box = await nav
        .getByText(text, { exact: true })
        .first()
        .evaluate((el) => {
          const range = document.createRange();
          range.selectNodeContents(el);
          return range.getBoundingClientRect().x;
        });
      return Math.round(box);
    };
    for (const heading of ['Resources', 'Management', 'Access', 'Activity', 'Clusters']) {
      expect(Math.abs((await headingLeft(heading)) - iconLefts[0]!)).toBeLessThanOrEqual(1);
    }
  });

  test('Console Settings: dates in lists, the terminal’s font, size and scrollback, and the player', async ({
    page,
    context,
  }) => {
    test.setTimeout(120_000);
    const role = await createRootRole();
    const name = uniqueUser('settings');
    await signIn(context, [role, 'access', 'editor'], name);

    await page.goto('/web/settings');
    const main = page.getByRole('main');
    await expect(main.getByRole('heading', { name: 'Console Settings' })).toBeVisible();
    // The spec's defaults: the cluster's YYYY-MM-DD HH:mm:ss dates and 1000 lines of scrollback.
    await expect(page.getByLabel('Scrollback lines')).toHaveValue('1000');
    await expect(page.getByRole('combobox', { name: 'Date format' })).toHaveValue(
      /^Default \(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\)$/,
    );

    await page.getByRole('combobox', { name: 'Date format' }).click();
    await page.getByRole('option', { name: /^DD\/MM\/YYYY/ }).click();
    await page.getByRole('combobox', { name: 'Font', exact: true }).click();
    await page.getByRole('option', { name: 'DejaVu Sans Mono' }).click();
    await page.getByLabel('Font size').fill('20');
    await page.getByLabel('Scrollback lines').fill('50');
    await main.getByText('Dark', { exact: true }).click();
    await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');

    // Kept in this browser: a reload shows the same.
    await page.reload();
    await expect(page.getByLabel('Scrollback lines')).toHaveValue('50');
    await expect(page.getByLabel('Font size')).toHaveValue('20');
    await expect(page.getByRole('combobox', { name: 'Font', exact: true })).toHaveValue(
      'DejaVu Sans Mono',
    );
    await expect(page.locator('html')).toHaveAttribute('data-mantine-color-scheme', 'dark');

    // Dates in lists follow the format (Manage Clusters: the last connection).
    await page.goto('/web/clusters');
    const row = page.getByRole('main').getByRole('row', { name: new RegExp(cluster) });
    await expect(row).toContainText(/\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2}/);
    await expect(row).not.toContainText(/\d{4}-\d{2}-\d{2} \d{2}:/);

    // A terminal opens with the font, its size and 50 lines of scrollback.
    await page.goto(`/web/cluster/${cluster}/console/node/${hostname()}/root`);
    await expectConnected(page);
    const look = await rowsStyle(page);
    expect(look.fontSize).toBe('20px');
    expect(look.fontFamily).toContain('DejaVu Sans Mono');
    await runInTerminal(page, 'seq 1 300');
    await expectOnScreen(page, '\n300');
    await terminal(page).hover();
    await page.mouse.wheel(0, -100_000);
    // Scrolled to the very top: only 50 lines are kept above the screen, so 1 to ~200 are gone.
    await expect
      .poll(async () => {
        const rows = await terminal(page).locator('.xterm-rows > div').allTextContents();
        return Number(rows[0]!.replace(/\u00a0/g, ' ').trim());
      })
      .toBeGreaterThan(200);
    await runInTerminal(page, 'exit');
    await expect(page.getByRole('status').filter({ hasText: 'disconnected:' })).toBeVisible();

    // The player opens the recording of that session with the same font size.
    let sid = '';
    await expect
      .poll(async () => (sid = await sessionIdOf(page, name)), { timeout: 20_000 })
      .not.toBe('');
    await page.goto(`/web/cluster/${cluster}/session/${sid}?recordingType=ssh`);
    await expect.poll(async () => (await rowsStyle(page)).fontSize).toBe('20px');
    expect((await rowsStyle(page)).fontFamily).toContain('DejaVu Sans Mono');
  });

  test('unsaved edits ask before the page is left: lock form, role and connector editors, user dialog', async ({
    page,
    context,
  }) => {
    test.setTimeout(90_000);
    await signIn(context, ['editor']);
    await page.goto('/web/users');
    const nav = page.getByRole('navigation', { name: 'Main navigation' });
    const leaveDialog = page.getByRole('dialog', { name: 'Leave this page?' });

    // The lock form: another page through the side nav asks first; Stay keeps the text.
    await nav.getByRole('link', { name: 'Manage Session & Identity Locks' }).click();
    await page.getByRole('link', { name: 'Create New Lock' }).click();
    await expect(page).toHaveURL(/\/web\/locks\/new$/);
    await page.getByLabel('Message').fill('not yet saved');
    await nav.getByRole('link', { name: 'Manage Users' }).click();
    await expect(leaveDialog).toBeVisible();
    await leaveDialog.getByRole('button', { name: 'Stay' }).click();
    await expect(page).toHaveURL(/\/web\/locks\/new$/);
    await expect(page.getByLabel('Message')).toHaveValue('not yet saved');

    // Closing or reloading the tab gets the browser's own question (beforeunload).
    const dialogs: string[] = [];
    page.once('dialog', (dialog) => {
      dialogs.push(dialog.type());
      void dialog.dismiss();
    });
    await page.close({ runBeforeUnload: true });
    await expect.poll(() => dialogs).toEqual(['beforeunload']);
    expect(page.isClosed()).toBe(false);

    await nav.getByRole('link', { name: 'Manage Users' }).click();
    await leaveDialog.getByRole('button', { name: 'Leave' }).click();
    await expect(page).toHaveURL(/\/web\/users$/);

    // The role editor: the browser's Back asks too.
    await nav.getByRole('link', { name: 'Manage Roles' }).click();
    await page.getByRole('button', { name: 'Create New Role' }).click();
    const editor = page.getByRole('textbox', { name: 'Role YAML' });
    await editor.click();
    await page.keyboard.type('# a change');
    await page.goBack();
    await expect(leaveDialog).toBeVisible();
    await leaveDialog.getByRole('button', { name: 'Stay' }).click();
    await expect(page).toHaveURL(/\/web\/roles$/);
    await expect(editor).toContainText('# a change');
    await page.getByRole('button', { name: 'Cancel' }).click();

    // The user dialog.
    await nav.getByRole('link', { name: 'Manage Users' }).click();
    await page.getByRole('button', { name: 'Create User' }).click();
    await page.getByRole('dialog', { name: 'Create User' }).getByLabel('Username').fill('half');
    await page.goBack();
    await expect(leaveDialog).toBeVisible();
    await leaveDialog.getByRole('button', { name: 'Leave' }).click();
    await expect(page).toHaveURL(/\/web\/roles$/);

    // The connector editor.
    await nav.getByRole('link', { name: 'Manage Auth Connectors' }).click();
    await page.getByRole('button', { name: 'New connector' }).click();
    await page.getByRole('menuitem').first().click();
    const yaml = page.getByRole('textbox', { name: 'Connector YAML' });
    await yaml.click();
    await page.keyboard.type('# a change');
    await page.goBack();
    await expect(leaveDialog).toBeVisible();
    await leaveDialog.getByRole('button', { name: 'Stay' }).click();
    await expect(page).toHaveURL(/\/web\/sso$/);
    await expect(yaml).toContainText('# a change');

    // Nothing changed, nothing asked.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.goBack();
    await expect(page).toHaveURL(/\/web\/roles$/);
    await expect(leaveDialog).toHaveCount(0);
  });

  test("an error body without a message reads 'Unknown error' (spec §8)", async ({
    page,
    context,
  }) => {
    await signIn(context, ['editor']);
    // The server never answers so; the console must still say something sensible.
    await page.route('**/v1/webapi/roles', (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{}' }),
    );
    await page.goto('/web/roles');
    await expect(page.getByRole('main').getByText('Unknown error', { exact: true })).toBeVisible({
      timeout: 20_000,
    });
    await expect(page.getByRole('main')).not.toContainText('Internal Server Error');
  });

  test('search placeholders fit their boxes', async ({ page, context }) => {
    const role = await createRootRole();
    await signIn(context, [role, 'access', 'auditor']);
    for (const [pathName, box] of [
      [`/web/cluster/${cluster}/nodes`, 'Search servers'],
      [`/web/cluster/${cluster}/recordings`, 'Search recordings'],
      [`/web/cluster/${cluster}/audit`, 'Search events'],
    ] as const) {
      await page.goto(pathName);
      const input = page.getByRole('searchbox', { name: box });
      await expect(input).toBeVisible();
      const { placeholder, needed, room } = await placeholderRoom(input);
      expect(placeholder.length).toBeGreaterThan(0);
      expect(needed, `${box}: "${placeholder}"`).toBeLessThanOrEqual(room);
    }
  });

  test('the custom time range is typed and shown in 24-hour time', async ({ page, context }) => {
    await signIn(context, ['auditor']);
    await page.goto(`/web/cluster/${cluster}/audit`);
    await page.getByRole('combobox', { name: 'Time range' }).click();
    await page.getByRole('option', { name: 'Custom range' }).click();
    const from = page.getByRole('textbox', { name: 'From' });
    const to = page.getByRole('textbox', { name: 'To' });
    await expect(from).toHaveValue(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    await expect(to).toHaveValue(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);

    await to.fill('2024-05-02 07:05');
    const searched = page.waitForRequest((request) => {
      const url = new URL(request.url());
      return url.pathname.endsWith('/events/search') && url.searchParams.has('from');
    });
    await from.fill('2024-05-01 18:30');
    const url = new URL((await searched).url());
    // 18:30 is the evening: in the browser's own time zone, as typed.
    const expected = await page.evaluate(() => ({
      from: new Date(2024, 4, 1, 18, 30).toISOString(),
      to: new Date(2024, 4, 2, 7, 5).toISOString(),
    }));
    expect(url.searchParams.get('from')).toBe(expected.from);
    expect(url.searchParams.get('to')).toBe(expected.to);
    // No 12-hour time anywhere (a time of day with AM/PM; words such as 'SAML' in events are fine).
    await expect(page.getByText(/\d:\d{2}(:\d{2})?\s?[AP]M\b/i)).toHaveCount(0);
  });
});

/** The id of the user's last ended session, from the audit log's session search (spec §7). */
async function sessionIdOf(page: Page, user: string): Promise<string> {
  return page.evaluate(
    async ([clusterId, who]) => {
      const token = JSON.parse(localStorage.getItem('grv_teleport_token') ?? '{}').accessToken;
      const csrf = document.querySelector('meta[name="grv_csrf_token"]')?.getAttribute('content');
      const to = new Date(Date.now() + 60_000).toISOString();
      const from = new Date(Date.now() - 3_600_000).toISOString();
      const response = await fetch(
        `/v1/webapi/sites/${clusterId}/events/search/sessions?from=${from}&to=${to}`,
        { headers: { Authorization: `Bearer ${token}`, 'X-CSRF-Token': csrf ?? '' } },
      );
      if (!response.ok) return '';
      const { events } = (await response.json()) as { events: { user?: string; sid?: string }[] };
      return events.find((event) => event.user === who)?.sid ?? '';
    },
    [cluster, user] as const,
  );
}
