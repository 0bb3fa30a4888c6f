import { rm } from 'node:fs/promises';
import { test, type BrowserContext, type Page } from '@playwright/test';
import { expect } from './support/identity.js';
import type { RunningPostern } from './support/postern-process.js';
import { signUpInOwnContext, startWithRolesAndNode } from './support/roles-and-node.js';
import type { RunningSshd } from './support/sshd.js';
import { expectOnScreen, runInTerminal, terminal } from './support/terminal.js';

// require_session_mfa (docs/rbac.md, "Per-session MFA"): a terminal of a user whose role asks
// for it opens only after a fresh tap of their key, asked for in the console and answered by
// Chromium's virtual authenticator; cancelling the check gives the session up.

const cluster = 'e2e-cluster';
const node = 'mfa-host';
const consolePath = `/web/cluster/${cluster}/console/node/${node}/root`;
const roles = `kind: role
version: v7
metadata:
  name: root-with-mfa
spec:
  options:
    require_session_mfa: true
  allow:
    logins: [root]
    node_labels: {mfa: e2e}
  deny: {}
`;

test.describe.serial('per-session MFA in the web terminal', () => {
  let server: RunningPostern;
  let sshd: RunningSshd | undefined;
  let mia: Page;
  const contexts: BrowserContext[] = [];

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    ({ server, sshd } = await startWithRolesAndNode({
      roles,
      node: { name: node, labels: 'mfa=e2e' },
    }));
    mia = await signUpInOwnContext(browser, server, contexts, 'mia', 'root-with-mfa');
  });

  test.afterAll(async () => {
    for (const context of contexts) await context.close();
    await sshd?.stop();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  test('the terminal asks for the key first, and the shell starts once it is tapped', async () => {
    await mia.goto(consolePath);
    const check = mia.getByRole('dialog', { name: 'Verify it is you' });
    await expect(check).toBeVisible();
    await expect(check).toContainText('fresh two-factor check for each session');
    // Nothing of the server before the check: the proxy has not dialled it.
    await expect(terminal(mia)).not.toContainText('#');
    await check.getByRole('button', { name: 'Verify' }).click();
    await expect(check).toHaveCount(0);
    await runInTerminal(mia, 'echo "mfa-$((6*7))"');
    await expectOnScreen(mia, 'mfa-42');
  });

  test('cancelling the check ends the session before it starts', async () => {
    await mia.goto(consolePath);
    const check = mia.getByRole('dialog', { name: 'Verify it is you' });
    await check.getByRole('button', { name: 'Cancel' }).click();
    await expectOnScreen(mia, 'disconnected: MFA check cancelled');
  });
});
