import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { uniqueUser } from './support/identity.js';
import { posternBin } from './support/postern-process.js';
import { signIn } from './support/session.js';

// Manage Bots against the shared server: an admin creates a bot in the console, the command the
// console shows is run as is (the real CLI, the real proxy), and the copy it started is listed.

test('an admin creates a bot, its copy joins with the command shown, and the bot is deleted', async ({
  page,
  context,
}) => {
  await signIn(context, ['editor', 'access'], uniqueUser('botadmin'));
  const name = uniqueUser('deployer').toLowerCase();
  await page.goto('/web');
  await page.getByRole('link', { name: 'Manage Bots' }).click();
  await expect(page.getByRole('heading', { name: 'Manage Bots', level: 2 })).toBeVisible();

  await page.getByRole('button', { name: 'Create Bot' }).first().click();
  const form = page.getByRole('dialog', { name: 'Create Bot' });
  await form.getByRole('textbox', { name: 'Name' }).fill(name);
  const roles = form.getByRole('combobox', { name: 'Roles' });
  await roles.click();
  await page.getByRole('option', { name: 'access', exact: true }).click();
  await form.getByRole('combobox', { name: 'Logins' }).fill('deploy');
  await form.getByRole('combobox', { name: 'Logins' }).press('Enter');
  await form.getByRole('button', { name: 'Create' }).click();

  const join = page.getByRole('dialog', { name: 'Join token' });
  await expect(join.getByText(`Bot ${name} was created.`)).toBeVisible();
  // The shared server has the embedded self-signed certificate.
  await join.getByRole('checkbox').check();
  const command = (await join.getByLabel('Join command').textContent()) ?? '';
  expect(command).toMatch(/^postern bot start --proxy localhost:\d+ --token [0-9a-f]{32} /);
  expect(command).toContain('--insecure');

  // The command as shown, with a destination of the test's own, once.
  const destination = await mkdtemp(path.join(tmpdir(), 'postern-e2e-bot-'));
  /** `postern bot start … --oneshot`: the first join with the token, then renewals. */
  const botStart = (args: string[]) =>
    spawnSync(process.execPath, [posternBin, ...args, '--oneshot'], {
      encoding: 'utf8',
      timeout: 60_000,
    });
  try {
    const args = command.replace('/var/lib/postern-bot', destination).split(' ').slice(1);
    const started = botStart(args);
    expect(started.status, started.stderr).toBe(0);
    const profile = JSON.parse(await readFile(path.join(destination, 'profile.json'), 'utf8'));
    expect(JSON.stringify(profile)).toContain(`bot-${name}`);
    await join.getByRole('button', { name: 'Done' }).click();

    // The copy that joined, after a reload: one instance at generation 1, the token used up.
    await page.reload();
    await page.getByRole('searchbox', { name: 'Search bots' }).fill(name);
    const row = page.getByRole('row').filter({ hasText: name });
    await expect(row.getByText(`acts as bot-${name}`)).toBeVisible();
    await row.getByRole('button', { name: 'Options' }).click();
    await page.getByRole('menuitem', { name: 'Running copies and tokens' }).click();
    const details = page.getByRole('dialog', { name: `Bot ${name}` });
    const copies = details.getByRole('table').first();
    await expect(copies.getByRole('row')).toHaveCount(2);
    await expect(copies.getByRole('row').nth(1).getByRole('cell').nth(1)).toHaveText('1');
    await expect(details.getByText('None.')).toBeVisible();

    // Lock that copy alone, from its row: Create New Lock opens with the instance named, and
    // the copy's next renewal (the real CLI, signed with its certificate) is refused.
    const instance = (await copies
      .getByRole('row')
      .nth(1)
      .getByRole('cell')
      .first()
      .textContent())!;
    await copies.getByRole('link', { name: `Lock instance ${instance}` }).click();
    await expect(page).toHaveURL(/\/web\/locks\/new\?kind=bot_instance/);
    await expect(page.getByRole('combobox', { name: 'Target kind' })).toHaveValue('bot_instance');
    await expect(page.getByRole('combobox', { name: 'Target name' })).toHaveValue(instance);
    await page.getByLabel('Message').fill('runner reimaged');
    await page.getByRole('button', { name: 'Create Lock' }).click();
    await expect(
      page.getByRole('main').getByRole('row').filter({ hasText: 'runner reimaged' }),
    ).toContainText(`bot_instance: ${instance}`);
    const renewal = botStart(['bot', 'start', '--destination', destination]);
    expect(renewal.status).not.toBe(0);
    expect(renewal.stderr).toContain('locked: runner reimaged');
  } finally {
    await rm(destination, { recursive: true, force: true });
  }

  await page.goto('/web/bots');
  await page.getByRole('searchbox', { name: 'Search bots' }).fill(name);
  const row = page.getByRole('row').filter({ hasText: name });

  await row.getByRole('button', { name: 'Options' }).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page
    .getByRole('dialog', { name: 'Delete Bot' })
    .getByRole('button', { name: 'Delete' })
    .click();
  await expect(page.getByText('No bots match the search.')).toBeVisible();
});
