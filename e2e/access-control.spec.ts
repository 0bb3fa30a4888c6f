import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from '@playwright/test';
import {
  expect,
  expectSignedIn,
  postern,
  signUpWithPasskey,
  test,
  uniqueUser,
} from './support/identity.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

const roleYaml = (name: string, description: string) => `kind: role
version: v7
metadata:
  name: ${name}
  description: ${description}
spec:
  allow:
    rules:
      - resources: [role]
        verbs: [list, read]
  deny: {}
`;

/** Replaces the YAML editor's whole text (typing would fight the editor's auto-indent). */
async function setEditorText(page: Page, text: string) {
  const editor = page.getByRole('textbox', { name: 'Role YAML' });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

async function openRowMenu(page: Page, rowName: RegExp | string) {
  await page
    .getByRole('main')
    .getByRole('row', { name: rowName })
    .getByRole('button', { name: 'Options' })
    .click();
}

/** A second person in their own browser context, signed up with their own passkey. */
async function openAsNewUser(browser: Browser, baseURL: string, inviteUrl: string) {
  const context = await browser.newContext({ baseURL });
  const page = await context.newPage();
  await addVirtualAuthenticator(context, page, { residentKey: true });
  await page.goto(new URL(inviteUrl).pathname);
  await page.getByRole('button', { name: 'Use a passkey instead of a password' }).click();
  await page.getByRole('button', { name: 'Register passkey', exact: true }).click();
  await expectSignedIn(page);
  return { context, page };
}

test.describe('access control in the console', () => {
  test('an admin creates a role and a user; the user sees only what the role allows; a lock ends their session', async ({
    page,
    context,
    browser,
    server,
  }) => {
    test.setTimeout(120_000);
    await addVirtualAuthenticator(context, page, { residentKey: true });
    await signUpWithPasskey(page, server, 'editor,access,auditor');
    const roleName = uniqueUser('role-viewer-');

    // A new role, written in the YAML editor; a mistake is shown at its line first.
    await page.goto('/web/roles');
    await page.getByRole('button', { name: 'Create New Role' }).click();
    await setEditorText(
      page,
      roleYaml(roleName, 'reads roles').replace('verbs: [list, read]', 'verbz: [list, read]'),
    );
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'The role has errors' })).toContainText(
      'line 10',
    );
    await setEditorText(page, roleYaml(roleName, 'reads roles'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(
      page.getByRole('main').getByRole('row', { name: new RegExp(roleName) }),
    ).toBeVisible();

    // A user holding it, and their invite link.
    const userName = uniqueUser('vic');
    await page.goto('/web/users');
    await page.getByRole('button', { name: 'Create User' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create User' });
    await dialog.getByLabel('Username', { exact: true }).fill(userName);
    await dialog.getByRole('combobox', { name: 'Roles' }).fill(roleName);
    await page.getByRole('option', { name: roleName }).click();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const linkDialog = page.getByRole('dialog', { name: 'Invite link' });
    const inviteUrl = await linkDialog.getByLabel('Link to share').inputValue();
    expect(inviteUrl).toMatch(/\/web\/invite\//);
    await expect(
      page.getByRole('main').getByRole('row', { name: new RegExp(userName) }),
    ).toContainText(roleName);

    // The new user: Manage Roles in the nav, nothing else; Manage Users is denied.
    const victim = await openAsNewUser(browser, server.url, inviteUrl);
    try {
      const nav = victim.page.getByRole('navigation');
      await expect(nav.getByRole('link', { name: 'Manage Roles' })).toBeVisible();
      await expect(nav.getByRole('link', { name: 'Manage Users' })).toHaveCount(0);
      await expect(nav.getByRole('link', { name: 'Manage Clusters' })).toHaveCount(0);
      await victim.page.goto('/web/users');
      await expect(victim.page.getByText('Access Denied')).toBeVisible();
      await victim.page.goto('/web/roles');
      await expect(
        victim.page.getByRole('main').getByRole('row', { name: new RegExp(roleName) }),
      ).toBeVisible();
      await expect(victim.page.getByRole('button', { name: 'Create New Role' })).toHaveCount(0);

      // The admin locks the user: their open console ends, and they cannot sign in again.
      await page.goto('/web/locks/new');
      await page.getByRole('combobox', { name: 'Target kind' }).selectOption('user');
      await page.getByLabel('Target name').fill(userName);
      await page.getByLabel('Message').fill('under investigation');
      await page.getByRole('button', { name: 'Create Lock' }).click();
      await expect(page).toHaveURL(/\/web\/locks$/);
      await expect(
        page.getByRole('main').getByRole('row', { name: new RegExp(userName) }),
      ).toContainText('under investigation');

      await expect(victim.page).toHaveURL(/\/web\/login/, { timeout: 30_000 });
      await victim.page
        .getByRole('button', { name: 'Sign in with a passkey', exact: true })
        .click();
      await expect(victim.page.getByRole('alert')).toContainText('locked');
      await expect(victim.page).toHaveURL(/\/web\/login/);
    } finally {
      await victim.context.close();
    }
  });

  test("the reference system's presets and documented role examples save as they are in the Roles screen", async ({
    page,
    context,
    server,
  }) => {
    await addVirtualAuthenticator(context, page, { residentKey: true });
    await signUpWithPasskey(page, server, 'editor');
    const dir = path.resolve('packages/server/src/access-control/rbac/reference-roles');
    const documents = readdirSync(dir)
      .filter((file) => file.endsWith('.yaml'))
      .flatMap((file) => readFileSync(path.join(dir, file), 'utf8').split(/^---$/m));
    expect(documents.length).toBeGreaterThanOrEqual(8);
    await page.goto('/web/roles');
    for (const document of documents) {
      // Each under a name of its own: the presets exist already under theirs.
      const name = uniqueUser('ref-');
      const text = document.replace(/^(\s*)name: .*$/m, `$1name: ${name}`).trim();
      await page.getByRole('button', { name: 'Create New Role' }).click();
      await setEditorText(page, `${text}\n`);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect(
        page.getByRole('main').getByRole('row', { name: new RegExp(name) }),
        text.slice(0, 200),
      ).toBeVisible();
    }
  });

  test('a role edit that conflicts with a concurrent edit is refused with a clear 409', async ({
    page,
    context,
    server,
  }) => {
    // Two tabs and two editors: on a machine busy with other work this outlasts 30 s.
    test.setTimeout(120_000);
    await addVirtualAuthenticator(context, page, { residentKey: true });
    await signUpWithPasskey(page, server, 'editor');
    const roleName = uniqueUser('shared-');
    const second = await context.newPage();
    await page.goto('/web/roles');
    await page.getByRole('button', { name: 'Create New Role' }).click();
    await setEditorText(page, roleYaml(roleName, 'first version'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(
      page.getByRole('main').getByRole('row', { name: new RegExp(roleName) }),
    ).toBeVisible();

    // Both tabs open the same role.
    await second.goto('/web/roles');
    for (const tab of [page, second]) {
      await openRowMenu(tab, new RegExp(roleName));
      await tab.getByRole('menuitem', { name: 'Edit' }).click();
      await expect(tab.getByRole('textbox', { name: 'Role YAML' })).toContainText('first version');
    }
    const edited = async (tab: Page, description: string) => {
      const text = (await tab.getByRole('textbox', { name: 'Role YAML' }).innerText()).replace(
        'first version',
        description,
      );
      await setEditorText(tab, text);
      await tab.getByRole('button', { name: 'Save', exact: true }).click();
    };
    await edited(page, 'edited in tab one');
    await expect(
      page.getByRole('main').getByRole('row', { name: new RegExp(roleName) }),
    ).toContainText('edited in tab one');

    await edited(second, 'edited in tab two');
    const conflict = second
      .getByRole('alert')
      .filter({ hasText: 'This role was changed by someone else' });
    await expect(conflict).toBeVisible();
    // Nothing is lost: the second tab still holds its text; the stored role keeps the first edit.
    await expect(second.getByRole('textbox', { name: 'Role YAML' })).toContainText(
      'edited in tab two',
    );
    expect(postern(server, 'get', 'roles', roleName)).toContain('edited in tab one');
  });
});
