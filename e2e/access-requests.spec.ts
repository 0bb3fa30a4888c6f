import { rm } from 'node:fs/promises';
import { test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { expect, expectSignedIn } from './support/identity.js';
import type { RunningPostern } from './support/postern-process.js';
import { signUpInOwnContext, startWithRolesAndNode } from './support/roles-and-node.js';
import { serverRow } from './support/servers-page.js';
import type { RunningSshd } from './support/sshd.js';
import {
  expectConnected,
  expectOnScreen,
  runInTerminal,
  watchScreenFor,
} from './support/terminal.js';

// Just-in-time access in the console (issue 24): alice asks for editor and lab-root, bob
// approves, alice assumes them (Manage Users appears, and root on a lab server), and when the
// request's access ends her terminal on that server is closed and the roles are dropped.

const sshdNode = 'lab-host';
/**
 * How long the approved access lasts, counted from when alice submits the request (the server
 * counts it from creation, not approval). Approving, assuming and running a command in a new
 * terminal tab took about 5 s here; the rest is margin for a loaded machine, and the test then
 * waits out what is left.
 */
const accessSeconds = 40;

const roles = `kind: role
version: v7
metadata:
  name: requester
spec:
  allow:
    request:
      roles: [editor, lab-root]
      suggested_reviewers: [bob]
  deny: {}
---
kind: role
version: v7
metadata:
  name: lab-root
spec:
  allow:
    logins: [root]
    node_labels: {lab: e2e}
  deny: {}
---
kind: role
version: v7
metadata:
  name: approver
spec:
  allow:
    review_requests:
      roles: [editor, lab-root]
  deny: {}
`;

/** The top bar's badge of the assumed roles and their time left ("Assumed: … · 00:59"). */
const assumedBadge = (page: Page) =>
  page
    .getByRole('banner')
    .getByRole('status')
    .filter({ hasText: /^Assumed:/ });

/** Manage Users: in the navigation, and what /web/users shows. */
async function expectUsersPage(page: Page, allowed: boolean) {
  const link = page.getByRole('navigation').getByRole('link', { name: 'Manage Users' });
  if (!allowed) {
    // The navigation is drawn (so a missing link means something), without Manage Users.
    await expect(
      page.getByRole('navigation').getByRole('link', { name: 'Access Requests' }),
    ).toBeVisible();
    await expect(link).toHaveCount(0);
    await page.goto('/web/users');
    await expect(page.getByRole('heading', { name: 'Access Denied' })).toBeVisible();
    return;
  }
  await link.click();
  await expect(page).toHaveURL(/\/web\/users$/);
  const users = page.getByRole('main').getByRole('row');
  for (const [name, roles] of [
    ['alice', 'requester'],
    ['bob', 'approver'],
  ] as const) {
    const row = users.filter({ has: page.getByRole('cell', { name, exact: true }) });
    await expect(row).toContainText(roles);
  }
}

test.describe('access requests', () => {
  let server: RunningPostern;
  let sshd: RunningSshd | undefined;
  const contexts: BrowserContext[] = [];

  /** An invited user who registers a passkey, in a browser context of their own. */
  const signUp = (browser: Browser, name: string, roleNames: string) =>
    signUpInOwnContext(browser, server, contexts, name, roleNames);

  test.beforeAll(async () => {
    ({ server, sshd } = await startWithRolesAndNode({
      roles,
      node: { name: sshdNode, labels: 'lab=e2e' },
    }));
  });

  test.afterAll(async () => {
    for (const context of contexts) await context.close();
    await sshd?.stop();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  test('alice requests roles, bob approves, alice assumes them until their access ends', async ({
    browser,
  }) => {
    // Two sign-ups, the request's whole access time, and the pages around it.
    test.setTimeout(accessSeconds * 1000 + 120_000);
    const alice = await signUp(browser, 'alice', 'requester');
    const bob = await signUp(browser, 'bob', 'approver');

    // Her own roles do not manage users.
    await expectUsersPage(alice, false);

    // Her request, from Access Requests.
    await alice.getByRole('navigation').getByRole('link', { name: 'Access Requests' }).click();
    await expect(alice).toHaveURL(/\/web\/requests$/);
    await alice.getByRole('link', { name: 'New Access Request' }).click();
    await expect(alice).toHaveURL(/\/web\/requests\/new$/);
    const reason = `investigating lab incident ${Date.now().toString(36)}`;
    await alice.getByRole('checkbox', { name: 'editor', exact: true }).check();
    await alice.getByRole('checkbox', { name: 'lab-root', exact: true }).check();
    await alice.getByLabel('Reason').fill(reason);
    // Her roles suggest bob.
    await expect(alice.getByLabel('Suggested reviewers')).toHaveValue('bob');
    await alice.getByLabel('Duration').fill(`${accessSeconds}s`);
    await alice.getByRole('button', { name: 'Submit Request' }).click();
    await expect(alice).toHaveURL(/\/web\/requests\/[0-9a-f-]{36}$/);
    const requestUrl = new URL(alice.url()).pathname;
    const requestId = requestUrl.split('/').pop()!;
    const details = alice.getByRole('table', { name: 'Request details' });
    await expect(alice.getByRole('main').getByText('PENDING', { exact: true })).toBeVisible();
    await expect(details.getByRole('row', { name: /^Roles/ })).toContainText('editor, lab-root');
    await expect(details.getByRole('row', { name: /^Suggested reviewers/ })).toContainText('bob');

    // Bob finds it under To review and approves it.
    await bob.getByRole('navigation').getByRole('link', { name: 'Access Requests' }).click();
    await bob.getByRole('tab', { name: 'To review' }).click();
    await expect(bob).toHaveURL(/\/web\/requests\?tab=review$/);
    const row = bob
      .getByRole('table', { name: 'Requests to review' })
      .getByRole('row')
      .filter({ hasText: reason });
    await expect(row).toContainText('alice');
    await expect(row).toContainText('PENDING');
    await row.getByRole('link', { name: `Review request ${requestId}` }).click();
    await expect(bob).toHaveURL(new RegExp(`${requestUrl}$`));
    await bob.getByLabel('Comment').fill('approved for the lab incident');
    await bob.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(
      bob.getByRole('main').getByText('APPROVED', { exact: true }).first(),
    ).toBeVisible();
    const reviews = bob.getByRole('region', { name: 'Reviews' });
    await expect(reviews).toContainText('bob');
    await expect(reviews).toContainText('approved for the lab incident');

    // Alice sees the approval and assumes the roles: the page loads again under them.
    await alice.reload();
    await expect(
      alice.getByRole('main').getByText('APPROVED', { exact: true }).first(),
    ).toBeVisible();
    await alice.getByRole('button', { name: 'Assume roles' }).click();
    await expect(assumedBadge(alice)).toHaveText(/^Assumed: editor, lab-root · \d\d:\d\d$/);
    await expectUsersPage(alice, true);

    // And root on the lab server, in the browser's terminal.
    await alice.getByRole('navigation').getByRole('link', { name: 'Servers' }).click();
    const lab = serverRow(alice, sshdNode);
    await expect(lab).toContainText('lab: e2e');
    await lab.getByRole('button', { name: /^Connect to / }).click();
    const [terminal] = await Promise.all([
      alice.context().waitForEvent('page'),
      alice.getByRole('menuitem', { name: 'root', exact: true }).click(),
    ]);
    await expectConnected(terminal);
    await runInTerminal(terminal, 'echo "$(id -un)-$((6*7))"');
    await expectOnScreen(terminal, 'root-42');
    // All of that within the access: the badge still counts down.
    await expect(assumedBadge(alice)).toHaveText(/· \d\d:\d\d$/);
    await expect(assumedBadge(alice)).not.toHaveText(/· 00:00$/);

    // When the access ends the server closes the terminal...
    const removed = `access to root@${sshdNode} was removed`;
    const ended = await watchScreenFor(terminal, removed);
    await ended.within(accessSeconds * 1000 + 10_000);
    await expect(terminal.getByRole('status')).toHaveText(`disconnected: ${removed}`);

    // ...and the console drops the roles at zero, and loads the page again without them.
    await expect(assumedBadge(alice)).toHaveCount(0, { timeout: 15_000 });
    await expectSignedIn(alice);
    await expectUsersPage(alice, false);
    // The request is over: it shows EXPIRED and cannot be assumed again.
    await alice.goto(requestUrl);
    await expect(alice.getByRole('main').getByText('EXPIRED', { exact: true })).toBeVisible();
    await expect(alice.getByRole('button', { name: 'Assume roles' })).toHaveCount(0);
    await expect(assumedBadge(alice)).toHaveCount(0);
  });

  test('a lock on the request, from its page, signs out the console that assumed it', async ({
    browser,
  }) => {
    // Signing out waits for the console's token check, which runs every 15 s.
    test.setTimeout(150_000);
    const carol = await signUp(browser, 'carol', 'requester');
    const dave = await signUp(browser, 'dave', 'approver,editor');

    await carol.goto('/web/requests/new');
    const reason = `deploy the fix ${Date.now().toString(36)}`;
    await carol.getByRole('checkbox', { name: 'editor', exact: true }).check();
    await carol.getByLabel('Reason').fill(reason);
    await carol.getByRole('button', { name: 'Submit Request' }).click();
    await expect(carol).toHaveURL(/\/web\/requests\/[0-9a-f-]{36}$/);
    const requestUrl = new URL(carol.url()).pathname;
    const requestId = requestUrl.split('/').pop()!;

    await dave.goto(requestUrl);
    await dave.getByLabel('Comment').fill('ok');
    await dave.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(
      dave.getByRole('main').getByText('APPROVED', { exact: true }).first(),
    ).toBeVisible();

    await carol.reload();
    await carol.getByRole('button', { name: 'Assume roles' }).click();
    await expect(assumedBadge(carol)).toHaveText(/^Assumed: editor · /);

    // Dave, who may create locks, locks it from the request's page: the form names it.
    await dave.getByRole('link', { name: 'Lock request' }).click();
    await expect(dave).toHaveURL(/\/web\/locks\/new\?kind=access_request&name=/);
    await expect(dave.getByRole('combobox', { name: 'Target kind' })).toHaveValue('access_request');
    await expect(dave.getByLabel('Target name')).toHaveValue(requestId);
    const message = `granted in error ${Date.now().toString(36)}`;
    await dave.getByLabel('Message').fill(message);
    await dave.getByRole('button', { name: 'Create Lock' }).click();
    await expect(dave).toHaveURL(/\/web\/locks$/);
    await expect(
      dave.getByRole('main').getByRole('row').filter({ hasText: message }),
    ).toContainText(`access_request: ${requestId}`);

    // Carol's console, which assumed it, is refused at its next token check and told why.
    await expect(carol).toHaveURL(/\/web\/login/, { timeout: 30_000 });
    const notice = carol.getByRole('region', { name: 'Access locked' });
    await expect(notice).toContainText(message);
    await expect(notice).toContainText('Signing in again starts one without it.');
    // Dave's own session goes on.
    await dave.reload();
    await expectSignedIn(dave);
  });
});
