import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { expect } from './support/identity.js';
import { posternBin, type RunningPostern } from './support/postern-process.js';
import { signUpInOwnContext, startWithRolesAndNode } from './support/roles-and-node.js';
import { serverRow } from './support/servers-page.js';
import type { RunningSshd } from './support/sshd.js';
import {
  expectConnected,
  expectOnScreen,
  runInTerminal,
  screenText,
  terminal,
  watchScreenFor,
} from './support/terminal.js';
import { cluster } from './support/shared-server.js';

// Moderated sessions (docs/moderated-sessions.md): alice's role makes her sessions wait for a
// moderator holding `overseer`. Nothing she types runs, and nothing the node prints reaches her,
// until bob joins from Active Sessions as a moderator; his `t` ends the session, and when he
// leaves, on_leave: terminate ends it too. First in the browser terminal, then with the stock
// OpenSSH client through the SSH proxy, with the files `postern login --headless` leaves.

const sessionsPath = `/web/cluster/${cluster}/sessions`;
const sshdNode = 'guarded-host';
const waiting =
  'Postern > this session needs 1 moderator matching contains(user.roles, "overseer"). Joined: nobody yet. Waiting…';
const started = 'bob (moderator) joined: the session starts.';

const roles = `kind: role
version: v7
metadata:
  name: supervised
spec:
  allow:
    logins: [root]
    node_labels: {guard: e2e}
    require_session_join:
      - name: oversight
        filter: 'contains(user.roles, "overseer")'
        kinds: [ssh]
        count: 1
        modes: [moderator]
        on_leave: terminate
    rules:
      - resources: [session_tracker]
        verbs: [list, read]
        where: contains(session_tracker.participants, user.metadata.name)
  deny: {}
---
kind: role
version: v7
metadata:
  name: overseer
spec:
  allow:
    join_sessions:
      - name: moderate
        roles: [supervised]
        kinds: [ssh]
        modes: [moderator, observer]
    rules:
      - resources: [session_tracker]
        verbs: [list, read]
  deny: {}
`;

/** What a child process printed, on both streams, and a way to wait for a piece of it. */
function collect(child: ChildProcessWithoutNullStreams) {
  let text = '';
  child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    text: () => text,
    exited,
    async until(wanted: string, timeout = 30_000) {
      await expect
        .poll(() => text, { timeout, message: `"${wanted}" in the ssh client's output` })
        .toContain(wanted);
    },
  };
}

test.describe.serial('moderated sessions', () => {
  let server: RunningPostern;
  let sshd: RunningSshd | undefined;
  let cliHome: string | undefined;
  let alice: Page;
  let bob: Page;
  let aliceTerminal: Page;
  let bobTerminal: Page;
  const contexts: BrowserContext[] = [];
  const children: ChildProcessWithoutNullStreams[] = [];

  /** An invited user who registers a passkey, in a browser context of their own. */
  const signUp = (browser: Browser, name: string, roleNames: string) =>
    signUpInOwnContext(browser, server, contexts, name, roleNames);

  /** bob joins alice's live session on the node from Active Sessions, as a moderator. */
  async function joinAsModerator(): Promise<Page> {
    await bob.goto(sessionsPath);
    const session = bob.getByRole('main').getByRole('row').filter({ hasText: 'alice' });
    // The page lists what was live when it loaded: reload until alice's session is there. A
    // reload on a busy CI machine can take seconds to list, so each try waits for it.
    await expect(async () => {
      await bob.reload();
      await expect(session).toHaveCount(1, { timeout: 8_000 });
    }).toPass({ timeout: 60_000 });
    await expect(session).toContainText('root');
    await expect(session).toContainText(sshdNode);
    await session.getByRole('button', { name: `Join session on ${sshdNode}` }).click();
    // The modes his role gives, and no peer: nobody types into alice's session but alice.
    await expect(bob.getByRole('menuitem', { name: 'As an observer (read-only)' })).toBeVisible();
    await expect(bob.getByRole('menuitem', { name: 'As a peer (full input)' })).toHaveCount(0);
    const [joined] = await Promise.all([
      bob.context().waitForEvent('page'),
      bob.getByRole('menuitem', { name: 'As a moderator' }).click(),
    ]);
    await expectConnected(joined);
    await expect(joined.getByText('Moderating (read-only; t ends the session)')).toBeVisible();
    return joined;
  }

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    ({ server, sshd } = await startWithRolesAndNode({
      roles,
      node: { name: sshdNode, labels: 'guard=e2e' },
    }));
    alice = await signUp(browser, 'alice', 'supervised');
    bob = await signUp(browser, 'bob', 'overseer');
  });

  test.afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    for (const context of contexts) await context.close();
    await sshd?.stop();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
    if (cliHome) await rm(cliHome, { recursive: true, force: true });
  });

  test("alice's browser terminal waits for a moderator and starts when bob joins from Active Sessions", async () => {
    await alice.getByRole('navigation').getByRole('link', { name: 'Servers' }).click();
    const row = serverRow(alice, sshdNode);
    await expect(row).toContainText('guard: e2e');
    await row.getByRole('button', { name: /^Connect to / }).click();
    [aliceTerminal] = await Promise.all([
      alice.context().waitForEvent('page'),
      alice.getByRole('menuitem', { name: 'root', exact: true }).click(),
    ]);
    await expectConnected(aliceTerminal);
    await expectOnScreen(aliceTerminal, waiting);
    // Held: what she types is dropped, and the node's prompt stays unread.
    await runInTerminal(aliceTerminal, 'echo early-$((2*3))');
    await aliceTerminal.waitForTimeout(1000);
    expect(await screenText(aliceTerminal)).not.toContain('early-6');
    expect(await screenText(aliceTerminal)).not.toMatch(/[#$] *$/m);

    const aliceStarts = await watchScreenFor(aliceTerminal, started);
    bobTerminal = await joinAsModerator();
    await aliceStarts.within(30_000);
    // The node's held output is released (the prompt), and now her command runs.
    await expect.poll(() => screenText(aliceTerminal)).toMatch(/[#$] *$/m);
    await runInTerminal(aliceTerminal, 'echo "$((6*7))-ok"');
    await expectOnScreen(aliceTerminal, '42-ok');
    await expectOnScreen(bobTerminal, '42-ok');
    expect(await screenText(aliceTerminal)).not.toContain('early-6');
  });

  test("alice's file transfers wait for bob: his approval lets a download through, his denial stops an upload", async () => {
    const file = `/tmp/postern-moderated-${Date.now().toString(36)}.txt`;
    await runInTerminal(aliceTerminal, `echo moderated-ok > ${file}`);
    try {
      await aliceTerminal.getByRole('button', { name: 'Download file' }).click();
      const dialog = aliceTerminal.getByRole('dialog', { name: 'Download file' });
      await dialog.getByRole('textbox', { name: /File path/ }).fill(file);
      const saved = aliceTerminal.waitForEvent('download', { timeout: 30_000 });
      await dialog.getByRole('button', { name: 'Download' }).click();
      const row = aliceTerminal.getByRole('listitem', { name: `Download ${path.basename(file)}` });
      await expect(row.getByRole('status')).toHaveText('Waiting for a moderator to approve');

      const prompt = bobTerminal.getByRole('listitem', { name: `alice wants to download ${file}` });
      await prompt.getByRole('button', { name: 'Approve' }).click();
      const download = await saved;
      expect(await readFile((await download.path())!, 'utf8')).toBe('moderated-ok\n');
      await expect(row.getByRole('status')).toHaveText('Done');
      await expect(prompt).toHaveCount(0);

      await aliceTerminal.getByRole('button', { name: 'Upload files' }).click();
      const upload = aliceTerminal.getByRole('dialog', { name: 'Upload files' });
      await upload.getByRole('textbox', { name: /Destination directory/ }).fill('/tmp');
      await upload.getByLabel('Files').setInputFiles({
        name: 'not-approved.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('never lands\n'),
      });
      await upload.getByRole('button', { name: 'Upload' }).click();
      await bobTerminal
        .getByRole('listitem', { name: 'alice wants to upload not-approved.txt to /tmp' })
        .getByRole('button', { name: 'Deny' })
        .click();
      const refused = aliceTerminal.getByRole('listitem', { name: 'Upload not-approved.txt' });
      await expect(refused.getByRole('alert')).toHaveText('denied by bob');
      await expectOnScreen(aliceTerminal, 'bob denied alice’s request to upload not-approved.txt');
      // Cleared away: the terminal's own status is the only one left for the next test.
      for (const done of [refused, row])
        await done.getByRole('button', { name: 'Dismiss' }).click();
      await expect(aliceTerminal.getByRole('list', { name: 'File transfers' })).toHaveCount(0);
    } finally {
      await rm(file, { force: true });
    }
  });

  test("a moderator tab opened later shows alice's waiting request, and her cancel withdraws it from every tab", async () => {
    const file = '/etc/hostname';
    await aliceTerminal.getByRole('button', { name: 'Download file' }).click();
    const dialog = aliceTerminal.getByRole('dialog', { name: 'Download file' });
    await dialog.getByRole('textbox', { name: /File path/ }).fill(file);
    await dialog.getByRole('button', { name: 'Download' }).click();
    const row = aliceTerminal.getByRole('listitem', { name: 'Download hostname' });
    await expect(row.getByRole('status')).toHaveText('Waiting for a moderator to approve');
    const promptName = `alice wants to download ${file}`;
    await expect(bobTerminal.getByRole('listitem', { name: promptName })).toBeVisible();

    // Joined after she asked: the request still waiting is there, with its buttons.
    const lateTab = await joinAsModerator();
    try {
      const latePrompt = lateTab.getByRole('listitem', { name: promptName });
      await expect(latePrompt.getByRole('button', { name: 'Approve' })).toBeVisible();

      await row.getByRole('button', { name: 'Cancel' }).click();
      await expect(row.getByRole('status')).toHaveText('Cancelled');
      await expect(latePrompt).toHaveCount(0);
      await expect(bobTerminal.getByRole('listitem', { name: promptName })).toHaveCount(0);
      await expectOnScreen(bobTerminal, `alice withdrew the request to download ${file}`);
      await row.getByRole('button', { name: 'Dismiss' }).click();
    } finally {
      await lateTab.close();
    }
  });

  test('a ten-file upload waits eight at a time, and Approve all lets each batch through', async () => {
    const dir = `/tmp/postern-moderated-batch-${Date.now().toString(36)}`;
    await runInTerminal(aliceTerminal, `mkdir ${dir}`);
    try {
      await aliceTerminal.getByRole('button', { name: 'Upload files' }).click();
      const upload = aliceTerminal.getByRole('dialog', { name: 'Upload files' });
      await upload.getByRole('textbox', { name: /Destination directory/ }).fill(dir);
      await upload.getByLabel('Files').setInputFiles(
        Array.from({ length: 10 }, (_, i) => ({
          name: `part-${i}.txt`,
          mimeType: 'text/plain',
          buffer: Buffer.from(`part ${i}\n`),
        })),
      );
      await upload.getByRole('button', { name: 'Upload' }).click();

      const all = bobTerminal.getByRole('listitem', { name: 'All requests' });
      // Eight may wait at once: the other two are held in alice's tab until these are answered.
      await expect(all).toContainText('8 requests wait for your decision');
      await all.getByRole('button', { name: 'Approve all' }).click();
      await expect(all).toContainText('2 requests wait for your decision');
      await all.getByRole('button', { name: 'Approve all' }).click();

      const rows = aliceTerminal.getByRole('listitem', { name: /^Upload part-\d\.txt$/ });
      await expect(rows).toHaveCount(10);
      for (const row of await rows.all()) await expect(row.getByRole('status')).toHaveText('Done');
      await runInTerminal(aliceTerminal, `cat ${dir}/part-*.txt | wc -l`);
      await expect.poll(() => screenText(aliceTerminal)).toMatch(/^10\s*$/m);
      for (let left = 10; left > 0; left--) {
        await rows.first().getByRole('button', { name: 'Dismiss' }).click();
      }
      await expect(aliceTerminal.getByRole('list', { name: 'File transfers' })).toHaveCount(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("bob's t in his browser terminal ends alice's session", async () => {
    const terminated = 'terminated by moderator bob';
    try {
      const aliceEnds = await watchScreenFor(aliceTerminal, terminated);
      await terminal(bobTerminal).click();
      await bobTerminal.keyboard.press('t');
      await aliceEnds.within(10_000);
      await expect(aliceTerminal.getByRole('status')).toHaveText(`disconnected: ${terminated}`);
    } finally {
      // Either way the session ends here: bob leaving ends it too (on_leave: terminate).
      await bobTerminal.close();
      await expectOnScreen(aliceTerminal, 'disconnected:');
      await aliceTerminal.close();
    }
  });

  test('alice waits through the stock ssh client too; bob moderates it, and his leaving ends it', async () => {
    // `postern login --headless`, approved with alice's passkey: a certificate, known_hosts and
    // an ssh_config that jumps through the proxy.
    cliHome = await mkdtemp(path.join(tmpdir(), 'postern-home-'));
    const posternHome = path.join(cliHome, '.postern');
    const login = spawn(
      process.execPath,
      [posternBin, 'login', '--headless', '--proxy', server.url, '--user', 'alice'],
      { env: { ...process.env, POSTERN_HOME: posternHome, HOME: cliHome } },
    );
    children.push(login);
    const loginOut = collect(login);
    await loginOut.until('Complete the login in your browser:');
    const approval = /https?:\/\/\S+?(\/web\/headless\/\w+)/.exec(loginOut.text())![1]!;
    await alice.goto(approval);
    await alice.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(alice.getByRole('status')).toContainText('You can close this tab');
    expect(await loginOut.exited, loginOut.text()).toBe(0);
    expect(loginOut.text()).toContain(`Logged in as alice to ${cluster}`);

    const owner = spawn(
      'ssh',
      [
        ...['-F', path.join(posternHome, 'ssh_config')],
        ...['-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes'],
        '-tt',
        `root@${sshdNode}`,
      ],
      { env: { ...process.env, HOME: cliHome } },
    );
    children.push(owner);
    const ownerOut = collect(owner);
    await ownerOut.until(waiting);
    owner.stdin.write('echo early-via-ssh-$((3*3))\n');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(ownerOut.text()).not.toContain('early-via-ssh-9');

    const moderator = await joinAsModerator();
    await ownerOut.until(started);
    owner.stdin.write('echo via-ssh-$((4*4))\n');
    await ownerOut.until('via-ssh-16');
    await expectOnScreen(moderator, 'via-ssh-16');
    expect(ownerOut.text()).not.toContain('early-via-ssh-9');

    // bob closes his tab: the last required moderator left, and on_leave ends alice's session.
    await moderator.close();
    await ownerOut.until('the last required moderator left the session');
    expect(await ownerOut.exited).not.toBe(0);
  });
});
