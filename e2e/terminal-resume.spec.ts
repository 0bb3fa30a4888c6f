import { test, type Page } from '@playwright/test';
import {
  connectAsRoot,
  expect,
  ownerBehindRelayAndAuditor,
  relayedTerminalWorld,
} from './support/relayed-terminal.js';
import { cluster } from './support/shared-server.js';
import { expectOnScreen, runInTerminal, screenText } from './support/terminal.js';

// The browser's network drops under a terminal (docs/protocol.md §6.1): the console reaches the
// proxy through a TCP relay, which the test cuts (every connection reset, none taken for a few
// seconds). The tab says it is resuming, then goes on in the same shell: what the program
// printed meanwhile appears, nothing twice, and the screen before the drop is still there.
// Active Sessions shows the owner's connection as lost meanwhile.
const node = 'resume-host';

test.describe.serial('a terminal whose network drops', () => {
  const world = relayedTerminalWorld(node, 'resume');

  test('resumes the same shell, with the output printed while it was away', async ({ browser }) => {
    test.setTimeout(120_000);
    // Signed up and connected through the relay: every byte of the page takes that path; an
    // auditor watches Active Sessions over a network of their own.
    const { relay } = world();
    const { page, auditorPage: auditor } = await ownerBehindRelayAndAuditor(
      browser,
      world(),
      'alice',
      'audrey',
    );
    const consolePage = await connectAsRoot(page, node);
    await runInTerminal(consolePage, 'echo "shell-$$"');
    const pid = await shellPid(consolePage);
    await auditor.goto(`/web/cluster/${cluster}/sessions`);
    const alice = auditor.getByRole('main').getByText(/^alice/);
    await expect(alice).toHaveText('alice');

    // A command whose output comes while the network is down, long enough for the list's poll.
    await runInTerminal(consolePage, 'sleep 2; echo "while-$((6*7))"');
    relay.cut(8_000);
    await expect(
      consolePage.getByRole('status').filter({ hasText: 'Connection lost: resuming the session…' }),
    ).toBeVisible();
    await expect(alice).toHaveText('alice: connection lost', { timeout: 8_000 });
    await expectOnScreen(consolePage, 'while-42', 30_000);
    await expect(alice).toHaveText('alice', { timeout: 10_000 });
    await expect(consolePage.getByRole('status').filter({ hasText: 'resuming' })).toHaveCount(0);
    await expect(consolePage.getByRole('status').filter({ hasText: 'disconnected:' })).toHaveCount(
      0,
    );

    // The same shell, the screen kept, nothing printed twice.
    await runInTerminal(consolePage, 'echo "after-$$"');
    await expectOnScreen(consolePage, `after-${pid}`);
    const screen = await screenText(consolePage);
    expect(screen).toContain(`shell-${pid}`);
    expect(screen.match(/^while-42$/gm)).toHaveLength(1);
  });
});

/** The shell's PID, from the `shell-<pid>` line it printed. */
async function shellPid(page: Page): Promise<string> {
  let pid = '';
  await expect
    .poll(async () => {
      pid = /^shell-(\d+)$/m.exec(await screenText(page))?.[1] ?? '';
      return pid;
    })
    .not.toBe('');
  return pid;
}
