import { rm } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { postern } from './support/identity.js';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import { reloadServersUntil } from './support/servers-page.js';
import { signIn } from './support/session.js';
import { freePort, startSshd, type RunningSshd } from './support/sshd.js';

const serversPath = '/web/cluster/e2e-cluster/nodes';

const row = (page: Page, hostname: string) =>
  page.getByRole('main').getByRole('row').filter({ hasText: hostname });

/** The tooltip of a row's status chip, under the pointer. */
async function statusTooltip(page: Page, hostname: string): Promise<string> {
  await row(page, hostname).getByText('offline', { exact: true }).hover();
  const tooltip = page.getByRole('tooltip');
  await expect(tooltip).toBeVisible();
  return tooltip.innerText();
}

test.describe('OpenSSH servers on the Servers page', () => {
  let server: RunningPostern;
  let sshd: RunningSshd | undefined;
  /** When this file's sshd came up: it cannot have been seen before. */
  let sshdStartedAt = 0;

  test.beforeAll(async () => {
    // Checked every second, so a stopped sshd shows offline within a few.
    server = await startPostern([], { configYaml: 'openssh_check_interval: 1s' });
    sshdStartedAt = Date.now();
    sshd = await startSshd(postern(server, 'ca', 'export', '--type', 'user'));
    postern(server, 'nodes', 'add', '--name', 'answers', '--addr', `127.0.0.1:${sshd.port}`);
    // Nobody listens there: a server that does not answer.
    postern(server, 'nodes', 'add', '--name', 'silent', '--addr', `127.0.0.1:${await freePort()}`);
  });

  test.afterAll(async () => {
    await sshd?.stop();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  test('one that answers is online; one that never did is offline, never seen; a stopped one goes offline with its last-seen time', async ({
    page,
    context,
  }) => {
    test.setTimeout(150_000);
    await signIn(context, ['access'], 'olga', server);
    await page.goto(`${server.url}${serversPath}`);
    await reloadServersUntil(page, () =>
      expect(row(page, 'answers')).toContainText('online', { timeout: 1000 }),
    );
    await expect(row(page, 'silent')).toContainText('offline');
    expect(await statusTooltip(page, 'silent')).toBe('Never seen');

    const stoppedAt = Date.now();
    await sshd!.stop();
    sshd = undefined;
    // Offline once the heartbeat marker's TTL has passed: up to a minute on a busy machine.
    await reloadServersUntil(
      page,
      () => expect(row(page, 'answers')).toContainText('offline', { timeout: 1000 }),
      60_000,
    );
    const lastSeen = await statusTooltip(page, 'answers');
    expect(lastSeen).toMatch(/^Last seen \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    const seenAt = new Date(lastSeen.replace('Last seen ', '').replace(' ', 'T')).getTime();
    // Seen while it answered: after sshd started, no later than the stop (the tooltip shows whole
    // seconds, hence the second either side). Not "within N s of now": on a busy machine the wait
    // for the offline mark alone can take that long.
    expect(seenAt).toBeGreaterThanOrEqual(sshdStartedAt - 1_000);
    expect(seenAt).toBeLessThanOrEqual(stoppedAt + 1_000);
  });
});
