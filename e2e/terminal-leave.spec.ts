import { test } from '@playwright/test';
import {
  connectAsRoot,
  expect,
  ownerBehindRelayAndAuditor,
  relayedTerminalWorld,
} from './support/relayed-terminal.js';
import { cluster } from './support/shared-server.js';
import { expectOnScreen, runInTerminal } from './support/terminal.js';

// A page left while its terminal is resuming (docs/protocol.md §6.1, step 7): there is no socket
// to close, so the console posts the session's key as the page goes (fetch keepalive), and the
// session ends at once instead of when the grace runs out. The console reaches the proxy through
// a TCP relay that resets every connection and then refuses WebSocket upgrades for a minute
// while plain calls pass.
const node = 'leave-host';

test.describe.serial('a terminal left while it resumes', () => {
  const world = relayedTerminalWorld(node, 'leave');

  test('a page left while it resumes gives the session up at once', async ({ browser }) => {
    test.setTimeout(120_000);
    const { relay } = world();
    const { page, auditorPage: auditor } = await ownerBehindRelayAndAuditor(
      browser,
      world(),
      'bea',
      'abe',
    );
    const consolePage = await connectAsRoot(page, node);
    await runInTerminal(consolePage, 'echo "ready-$((2*3))"');
    await expectOnScreen(consolePage, 'ready-6');
    await auditor.goto(`/web/cluster/${cluster}/sessions`);
    const bea = auditor.getByRole('main').getByText(/^bea/);
    await expect(bea).toHaveText('bea');

    // For the whole grace (a minute) the terminal's socket cannot get through; calls can.
    relay.refuseWebSockets(60_000);
    relay.cut(0);
    await expect(
      consolePage.getByRole('status').filter({ hasText: 'Connection lost: resuming the session…' }),
    ).toBeVisible();
    await expect(bea).toHaveText('bea: connection lost', { timeout: 8_000 });
    await consolePage.goto('about:blank'); // the user leaves the page
    // The session ends now, not when the minute's grace runs out.
    await expect(bea).toHaveCount(0, { timeout: 15_000 });
  });
});
