import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { arch, hostname, platform, tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { test, type Page } from '@playwright/test';
import {
  choosePassword,
  expect,
  expectSignedIn,
  linkIn,
  postern,
  registerAuthenticatorApp,
} from './support/identity.js';
import { posternBin, startPostern, withFreeNodePort } from './support/postern-process.js';
import { startPosternInTerminal } from './support/postern-tty.js';
import { expectConnected, expectOnScreen, runInTerminal } from './support/terminal.js';

// What a newcomer does after `npm ci && npm start` (README, Quick start), on a real terminal.

/** Continuation lines of a readable entry start under its message. */
const indent = ' '.repeat(16);
const entryLine = /^\d\d:\d\d:\d\d (TRACE|DEBUG|INFO|WARN|ERROR|FATAL) {1,3}\S/;

/** The lines `postern start` printed on its terminal, without trailing blanks. */
const linesOf = (output: string) => output.split('\n').filter((line) => line.trim() !== '');

/** Sets up the first admin from its link, opens Servers and a terminal as `login`. */
async function quickStart(page: Page, inviteUrl: string, login: string): Promise<Page> {
  await page.goto(inviteUrl);
  await choosePassword(page);
  await registerAuthenticatorApp(page);
  await expectSignedIn(page);
  await page.getByRole('navigation').getByRole('link', { name: 'Servers' }).click();
  const row = page
    .getByRole('main')
    .getByRole('row')
    .filter({ hasText: `hostname: ${hostname()}` });
  // The built-in server, told apart by its labels.
  await expect(row).toContainText(`os: ${platform()}`);
  await expect(row).toContainText(`arch: ${arch()}`);
  await expect(row).toContainText('online');
  await row.getByRole('button', { name: /^Connect to / }).click();
  const [terminalPage] = await Promise.all([
    page.context().waitForEvent('page'),
    page.getByRole('menuitem', { name: login, exact: true }).click(),
  ]);
  await expectConnected(terminalPage);
  return terminalPage;
}

test.describe('the first run', () => {
  test('on a terminal: readable lines, the address and the invite link on lines of their own; the link opens, a restart renews it, and the quick start ends in a terminal', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const login = userInfo().username;
    const first = await startPosternInTerminal();
    let second: Awaited<ReturnType<typeof startPostern>> | undefined;
    try {
      const lines = linesOf(first.output());
      for (const line of lines) {
        expect(line.startsWith('{'), line).toBe(false);
        expect(entryLine.test(line) || line.startsWith(indent), line).toBe(true);
      }
      const origin = new URL(first.consoleUrl).origin;
      // The address the console is served at; the links name the same one.
      expect(origin).toMatch(/^https:\/\/localhost:\d+$/);
      const serving = lines.findIndex((line) =>
        /^\d\d:\d\d:\d\d INFO {3}Postern is serving the console at$/.test(line),
      );
      expect(serving).toBeGreaterThan(0);
      expect(lines[serving + 1]).toBe(`${indent}${origin}/web`);
      const inviteLine = lines.find((line) => line.startsWith(`${indent}${origin}/web/invite/`));
      expect(inviteLine).toMatch(/^ {16}https:\/\/localhost:\d+\/web\/invite\/[0-9a-f]{32}$/);
      const firstInvite = inviteLine!.trim();
      expect(lines.join('\n')).toContain(`admin can open a terminal on this host as ${login}`);
      expect(lines.join('\n')).toContain(
        `links use ${origin}; set --public-addr HOST:PORT (or public_addr) to change`,
      );

      // The printed link opens as printed.
      await page.goto(firstInvite);
      await expect(page.getByRole('heading', { name: 'Welcome to Postern' })).toBeVisible();
      await expect(page.getByText('Choose a password for admin.')).toBeVisible();
      await first.stop();

      // Started again without a terminal, on the same data dir: JSON lines, and since the admin
      // never signed in, a fresh link that replaces the first.
      second = await startPostern([], { dataDir: first.dataDir });
      expect(second.logs.filter((entry) => 'nonJson' in entry)).toEqual([]);
      const servingEntry = second.logs.find((entry) => typeof entry.consoleUrl === 'string')!;
      const origin2 = new URL(String(servingEntry.consoleUrl)).origin;
      expect(servingEntry.msg).toBe(`Postern is serving the console at ${origin2}/web`);
      const renewed = second.logs.find((entry) => typeof entry.inviteUrl === 'string')!;
      expect(renewed.msg).toMatch(/^The first admin \(admin\) has not signed in yet/);
      const secondInvite = String(renewed.inviteUrl);
      expect(secondInvite).toMatch(new RegExp(`^${origin2}/web/invite/[0-9a-f]{32}$`));
      expect(new URL(secondInvite).pathname).not.toBe(new URL(firstInvite).pathname);

      // The first link now leads to the expired-link page, which says how to get another.
      await page.goto(`${origin2}${new URL(firstInvite).pathname}`);
      await expect(page.getByText('This link is invalid or has expired.')).toBeVisible();
      await expect(
        page.getByText(/run postern users reset NAME with the same data dir/),
      ).toBeVisible();

      // Admin commands print links on the same address as the serving line.
      const added = postern(second, 'users', 'add', 'newcomer', '--roles', 'access');
      expect(added).toContain(`${origin2}${linkIn(added, 'invite')}`);

      const terminalPage = await quickStart(page, secondInvite, login);
      await runInTerminal(terminalPage, 'echo "i am $(id -un)"');
      await expectOnScreen(terminalPage, `i am ${login}`);
    } finally {
      await first.stop();
      await second?.stop();
      await rm(first.dataDir, { recursive: true, force: true });
    }
  });

  test('JSON lines with log.format json on a terminal; readable lines with --log-format text without one', async () => {
    test.setTimeout(120_000);
    const json = await startPosternInTerminal({ configYaml: 'log: {format: json}' });
    try {
      // The terminal shows stdout and stderr together: JSON lines, and on stderr the banner
      // that gives the person at the terminal the link without reading JSON.
      const lines = linesOf(json.output());
      const entries = lines.filter((line) => line.startsWith('{'));
      expect(entries.length).toBeGreaterThan(3);
      for (const line of entries) expect(JSON.parse(line)).toMatchObject({ service: 'postern' });
      const invite = entries.map((line) => JSON.parse(line)).find((entry) => entry.inviteUrl);
      expect(lines.filter((line) => !line.startsWith('{'))).toEqual([
        `The first admin (admin) is new. Open this one-time link to set it up (valid until ${invite.expires}):`,
        `  ${invite.inviteUrl}`,
      ]);
    } finally {
      await json.stop();
      await rm(json.dataDir, { recursive: true, force: true });
    }

    const dataDir = await mkdtemp(path.join(tmpdir(), 'postern-e2e-'));
    const configFile = path.join(dataDir, 'postern.yaml');
    await writeFile(configFile, withFreeNodePort());
    const args = ['--config', configFile, '--data-dir', dataDir, '--log-format', 'text'];
    const child = spawn(
      process.execPath,
      [posternBin, 'start', ...args, '--web-addr', '127.0.0.1:0', '--ssh-addr', '127.0.0.1:0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      await expect.poll(() => stdout, { timeout: 30_000 }).toMatch(/serving the console at\n/);
      await expect.poll(() => stdout).toMatch(/\n {16}https:\/\/localhost:\d+\/web\n/);
      for (const line of linesOf(stdout)) {
        expect(entryLine.test(line) || line.startsWith(indent), line).toBe(true);
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test('run as an ordinary user, the first admin opens a terminal on this host as that user', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    // The built-in server can switch users only as root; as anyone else it serves its own user.
    const other = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((line) => line.split(':'))
      .find(
        ([name, , uid, , , home, shell]) =>
          name &&
          Number(uid) >= 1000 &&
          Number(uid) < 65534 &&
          home &&
          existsSync(home) &&
          /\/(ba)?sh$/.test(shell ?? ''),
      );
    test.skip(!other || process.getuid?.() !== 0, 'needs root and an ordinary user with a shell');
    const [name, , uid, gid, , home] = other as string[];
    const dataDir = await mkdtemp(path.join(tmpdir(), 'postern-user-'));
    await chown(dataDir, Number(uid), Number(gid));
    const running = await startPosternInTerminal({
      dataDir,
      uid: Number(uid),
      gid: Number(gid),
      env: { HOME: home!, USER: name!, LOGNAME: name! },
    });
    try {
      const output = running.output();
      expect(output).toContain(`admin can open a terminal on this host as ${name}`);
      const invite = /^ {16}(https:\/\/\S+\/web\/invite\/[0-9a-f]{32})$/m.exec(output)![1]!;
      const terminalPage = await quickStart(page, invite, name!);
      await runInTerminal(terminalPage, 'echo "i am $(id -un) uid $(id -u)"');
      await expectOnScreen(terminalPage, `i am ${name} uid ${uid}`);
    } finally {
      await running.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test('run as a user id with no name, it starts and says that this host takes no login', async () => {
    test.setTimeout(120_000);
    test.skip(process.getuid?.() !== 0, 'needs root to start it as another user id');
    // A container's `--user 4242`: no passwd entry, so no login name to offer.
    const uid = 4242;
    expect(readFileSync('/etc/passwd', 'utf8')).not.toMatch(
      new RegExp(`^[^:]*:[^:]*:${uid}:`, 'm'),
    );
    const dataDir = await mkdtemp(path.join(tmpdir(), 'postern-uid-'));
    await chown(dataDir, uid, uid);
    const running = await startPosternInTerminal({
      dataDir,
      uid,
      gid: uid,
      env: { HOME: dataDir },
    });
    try {
      const output = running.output();
      expect(output).toMatch(/^ {16}https:\/\/localhost:\d+\/web\/invite\/[0-9a-f]{32}$/m);
      expect(output).toContain('WARN   Postern runs as a user id with no name here');
      expect(output).not.toContain('can open a terminal on this host');
    } finally {
      await running.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
