import { rm } from 'node:fs/promises';
import { test, type BrowserContext, type Page } from '@playwright/test';
import { expect } from './support/identity.js';
import type { RunningPostern } from './support/postern-process.js';
import { signUpInOwnContext, startWithRolesAndNode } from './support/roles-and-node.js';
import type { RunningSshd } from './support/sshd.js';
import { expectOnScreen, runInTerminal, terminal } from './support/terminal.js';
import { cluster } from './support/shared-server.js';

// require_session_mfa (docs/rbac.md, "Per-session MFA"): a terminal of a user whose role asks
// for it opens only after a fresh tap of their key, asked for in the console and answered by
// Chromium's virtual authenticator; cancelling the check gives the session up.

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

  test('uploading files asks once for the files chosen together, and they land', async () => {
    await mia.goto(consolePath);
    const check = mia.getByRole('dialog', { name: 'Verify it is you' });
    await check.getByRole('button', { name: 'Verify' }).click();
    await runInTerminal(mia, 'echo ready');
    await expectOnScreen(mia, 'ready');

    await mia.getByRole('button', { name: 'Upload files' }).click();
    const dialog = mia.getByRole('dialog', { name: 'Upload files' });
    await dialog.getByLabel('Files').setInputFiles([
      { name: 'mfa-one.txt', mimeType: 'text/plain', buffer: Buffer.from('one\n') },
      { name: 'mfa-two.txt', mimeType: 'text/plain', buffer: Buffer.from('two\n') },
    ]);
    await dialog.getByRole('button', { name: 'Upload' }).click();
    // The transfers' own check, answered by the same virtual key: one for both files.
    await expect(check).toBeVisible();
    await check.getByRole('button', { name: 'Verify' }).click();
    for (const name of ['mfa-one.txt', 'mfa-two.txt']) {
      const row = mia.getByRole('listitem', { name: `Upload ${name}` });
      await expect(row.getByRole('status')).toHaveText('Done', { timeout: 30_000 });
    }
    await expect(check).toHaveCount(0);
    await runInTerminal(mia, 'cat ~/mfa-one.txt ~/mfa-two.txt | tr -d "\\n"; echo " landed"');
    await expectOnScreen(mia, 'onetwo landed');
  });

  test('cancelling the check ends the session before it starts', async () => {
    await mia.goto(consolePath);
    const check = mia.getByRole('dialog', { name: 'Verify it is you' });
    await check.getByRole('button', { name: 'Cancel' }).click();
    await expectOnScreen(mia, 'disconnected: MFA check cancelled');
  });
});
