import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { expect, identityConfig, postern, uniqueUser } from './support/identity.js';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import { signUpInOwnContext, startWithRolesAndNode } from './support/roles-and-node.js';
import { serverRow } from './support/servers-page.js';
import { trustedClusterYaml } from './support/trusted-cluster.js';
import type { RunningSshd } from './support/sshd.js';
import { expectConnected, expectOnScreen, runInTerminal, terminal } from './support/terminal.js';

// Trusted clusters from end to end: a leaf's admin connects the leaf to a root in the console
// (a token made with the root's CLI), and a root user reaches the leaf's OpenSSH host through the
// root: the leaf's Servers page and a terminal, both forwarded over the leaf's tunnel, with the
// role the leaf's role_map gives. Two real `postern start` and a real sshd.

const rootName = 'root-e2e';
const leafName = 'leaf-e2e';
const leafNode = 'leaf-host';
const leafRole = 'leaf-root';

/** The leaf's role for root users: root on its lab hosts, nothing else. */
const leafRoles = `kind: role
version: v7
metadata:
  name: ${leafRole}
spec:
  allow:
    logins: [root]
    node_labels: {site: leaf}
  deny: {}
`;

/** A root role that asks for a fresh check before each session, on the root and its leaves. */
const checkedRole = `kind: role
version: v7
metadata:
  name: checked-on-root
spec:
  options:
    require_session_mfa: true
  allow: {}
  deny: {}
`;

/** Replaces the YAML editor's whole text (typing would fight the editor's auto-indent). */
async function setEditorText(page: Page, name: string, text: string) {
  await page.getByRole('textbox', { name }).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

test.describe.serial('trusted clusters', () => {
  let root: RunningPostern | undefined;
  let leaf: RunningPostern | undefined;
  let sshd: RunningSshd | undefined;
  const contexts: BrowserContext[] = [];

  const signUp = (browser: Browser, server: RunningPostern, prefix: string, roles: string) =>
    signUpInOwnContext(browser, server, contexts, uniqueUser(prefix), roles);

  test.beforeAll(async () => {
    // startArgs puts `--cluster-name e2e-cluster` first; these come last and win.
    root = await startPostern(['--insecure-no-tls', '--cluster-name', rootName], {
      configYaml: identityConfig(),
    });
    ({ server: leaf, sshd } = await startWithRolesAndNode({
      roles: leafRoles,
      node: { name: leafNode, labels: 'site=leaf' },
      extraArgs: ['--cluster-name', leafName],
    }));
  });

  // What both servers said about the link and the forwarding, should a step fail.
  // Playwright reads fixtures from the first argument's destructuring; this hook needs none.
  // eslint-disable-next-line no-empty-pattern
  test.afterEach(async ({}, testInfo) => {
    if (testInfo.status === testInfo.expectedStatus) return;
    const notable = (server: RunningPostern | undefined) =>
      (server?.logs ?? [])
        .filter(
          (entry) =>
            Number(entry.level) >= 40 || /trust|leaf|root|tunnel|cluster/i.test(String(entry.msg)),
        )
        .slice(-40)
        .map((entry) => JSON.stringify(entry));
    const report = [
      `root (${root?.url}) log, warnings and trust lines:`,
      ...notable(root),
      `leaf (${leaf?.url}) log, warnings and trust lines:`,
      ...notable(leaf),
    ].join('\n');
    await testInfo.attach('diagnosis', { body: report, contentType: 'text/plain' });
    console.log(report);
  });

  // Each resource is stopped once and forgotten, so a second round of hooks finds nothing to stop.
  test.afterAll(async () => {
    for (const context of contexts.splice(0)) await context.close();
    await sshd?.stop();
    sshd = undefined;
    for (const server of [leaf, root]) {
      if (!server) continue;
      await server.stop();
      await rm(server.dataDir, { recursive: true, force: true });
    }
    leaf = undefined;
    root = undefined;
  });

  test("the leaf's admin connects it to the root with a token from the root's CLI", async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const printed = postern(root!, 'tokens', 'add', '--type', 'trusted_cluster');
    const token = /The join token: ([0-9a-f]+)/.exec(printed)?.[1];
    expect(token, printed).toBeTruthy();

    const admin = await signUp(browser, leaf!, 'leafadmin', 'editor');
    await admin.getByRole('navigation').getByRole('link', { name: 'Trusted Clusters' }).click();
    await expect(admin).toHaveURL(/\/web\/trust$/);
    await expect(admin.getByRole('heading', { name: 'Trusted Clusters', level: 2 })).toBeVisible();
    await expect(admin.getByText('No trusted clusters yet')).toBeVisible();

    await admin.getByRole('button', { name: 'Connect to Root Cluster' }).click();
    const drawer = admin.getByRole('dialog', { name: 'Connect to a root cluster' });
    await expect(drawer.getByRole('region', { name: 'Setup guide' })).toContainText(
      'postern tokens add --type trusted_cluster',
    );
    await setEditorText(
      admin,
      'Trusted cluster YAML',
      trustedClusterYaml({ name: rootName, url: root!.url, token: token! }, leafRole),
    );
    await drawer.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(drawer).toBeHidden();

    // The page polls every 5 s while the link is connecting.
    const card = admin.getByRole('article', { name: `Trusted cluster ${rootName}` });
    await expect(card).toContainText('Root cluster');
    await expect(card.getByText('Connected', { exact: true })).toBeVisible({ timeout: 20_000 });
  });

  test("a root user finds the leaf in Manage Clusters and runs a command on the leaf's host", async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    // `access` is what the leaf's role_map maps; Manage Clusters is behind the trusted_cluster
    // list right (the console's trustedClusters flag), which only `editor` holds.
    const user = await signUp(browser, root!, 'rooter', 'access,editor');
    await user.getByRole('navigation').getByRole('link', { name: 'Manage Clusters' }).click();
    await expect(user).toHaveURL(/\/web\/clusters$/);
    const clusterRow = (name: string) =>
      user
        .getByRole('main')
        .getByRole('row')
        .filter({ has: user.getByRole('link', { name, exact: true }) });
    await expect(clusterRow(rootName)).toContainText('online');
    await expect(clusterRow(leafName)).toContainText('online');

    await clusterRow(leafName).getByRole('link', { name: leafName, exact: true }).click();
    await expect(user).toHaveURL(new RegExp(`/web/cluster/${leafName}/nodes$`));
    // The leaf's host, listed by the leaf: the root forwards the page's calls.
    const host = serverRow(user, leafNode);
    await expect(host).toContainText('site: leaf');
    await expect(host).toContainText('OpenSSH');

    await host.getByRole('button', { name: /^Connect to / }).click();
    const [terminal] = await Promise.all([
      user.context().waitForEvent('page'),
      user.getByRole('menuitem', { name: 'root', exact: true }).click(),
    ]);
    await expectConnected(terminal);
    expect(terminal.url()).toContain(`/web/cluster/${leafName}/console/node/`);
    await runInTerminal(terminal, 'echo "$(id -un)-via-root-$((6*7))"');
    await expectOnScreen(terminal, 'root-via-root-42');
    await terminal.close();

    // The top bar's picker has both clusters, and opens the same page in the root.
    const picker = user.getByRole('banner').getByRole('combobox', { name: 'Cluster' });
    await expect(picker).toHaveValue(leafName);
    await picker.click();
    await expect(user.getByRole('option', { name: leafName, exact: true })).toBeVisible();
    await user.getByRole('option', { name: rootName, exact: true }).click();
    await expect(user).toHaveURL(new RegExp(`/web/cluster/${rootName}/nodes$`));
    await expect(picker).toHaveValue(rootName);
    // The root's Servers page: its own built-in host, and not the leaf's.
    await expect(user.getByRole('main').getByRole('row').nth(1)).toBeVisible();
    await expect(serverRow(user, leafNode)).toHaveCount(0);
  });

  test("a root role's per-session MFA: the root asks for the key before the leaf's shell starts", async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    const file = path.join(root!.dataDir, 'checked-role.yaml');
    await writeFile(file, checkedRole);
    postern(root!, 'create', '-f', file);
    const user = await signUp(browser, root!, 'checked', 'access,checked-on-root');
    await user.goto(`/web/cluster/${leafName}/console/node/${leafNode}/root`);
    // The leaf asks on the socket; the root, which relays it, asks its user for their key.
    const check = user.getByRole('dialog', { name: 'Verify it is you' });
    await expect(check).toBeVisible();
    await expect(terminal(user)).not.toContainText('#');
    await check.getByRole('button', { name: 'Verify' }).click();
    await expect(check).toHaveCount(0);
    await runInTerminal(user, 'echo "checked-by-root-$((6*7))"');
    await expectOnScreen(user, 'checked-by-root-42');
  });
});
