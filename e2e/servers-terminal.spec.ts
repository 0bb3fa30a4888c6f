import { rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { test, type BrowserContext, type Locator, type Page } from '@playwright/test';
import { startAgent, type RunningAgent } from './support/agent.js';
import {
  choosePassword,
  expect,
  expectSignedIn,
  identityConfig,
  linkIn,
  postern,
  registerAuthenticatorApp,
  signInWithTotp,
  strongPassword,
  uniqueUser,
} from './support/identity.js';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import { reloadServersUntil, serverRow } from './support/servers-page.js';
import { startSshd, type RunningSshd } from './support/sshd.js';
import {
  expectConnected,
  expectOnScreen,
  runInTerminal,
  screenText,
  watchScreenFor,
} from './support/terminal.js';
import { nextStepCode } from './support/totp.js';
import { cluster } from './support/shared-server.js';

const serversPath = `/web/cluster/${cluster}/nodes`;
const sessionsPath = `/web/cluster/${cluster}/sessions`;
// The agent runs on this machine too, so its hostname is the built-in node's; labels tell the two
// apart (`kind: builtin` from this file's config, `kind: agent` from the agent's flags).
const host = hostname();
const lockMessage = 'e2e: suspicious activity';

// Prints which program started the shell: `postern.js start` (the built-in node), `postern.js
// agent` or `sshd`, so a test knows which host it reached, not only that it reached one.
const showParent = `echo "parent: $(tr '\\0' ' ' </proc/$PPID/cmdline | grep -o 'postern.js [a-z]*\\|^sshd')"`;

const observerRole = (name: string) => `kind: role
version: v7
metadata:
  name: ${name}
spec:
  allow:
    join_sessions:
      - name: watch access sessions
        roles: [access]
        kinds: [ssh]
        modes: [observer]
  deny: {}
`;

/** Connect → login on a Servers row; the console opens in a new browser tab. */
async function connect(row: Locator, login: string): Promise<Page> {
  const page = row.page();
  await row.getByRole('button', { name: /^Connect to / }).click();
  const [consolePage] = await Promise.all([
    page.context().waitForEvent('page'),
    page.getByRole('menuitem', { name: login, exact: true }).click(),
  ]);
  await expectConnected(consolePage);
  return consolePage;
}

test.describe.serial('servers and the terminal', () => {
  let server: RunningPostern;
  let admin: Page;
  let user: Page;
  let contexts: BrowserContext[] = [];
  let userName: string;
  let userSecret: string;
  let userConsole: Page;
  let observerConsole: Page;
  let agent: RunningAgent | undefined;
  let sshd: RunningSshd | undefined;

  test.beforeAll(async ({ browser }) => {
    server = await startPostern(['--insecure-no-tls'], {
      configYaml: [
        identityConfig(),
        // A stopped agent must show offline within seconds (three missed heartbeats).
        'heartbeat_interval: 1s',
        'ssh_service: {labels: {kind: builtin}}',
      ].join('\n'),
    });
    const browse = async () => {
      const context = await browser.newContext({ baseURL: server.url });
      contexts.push(context);
      return context.newPage();
    };
    admin = await browse();
    user = await browse();
  });

  // This file's agent tests failed twice in CI, never here: the agent's row was missing from
  // Servers. Most likely the user had been signed out: reloadUntil reloads every 500 ms, each
  // new page renews at once (25 s bearer), and a reload that cut a renewal off lost the session
  // (fixed; session-lifecycle.spec.ts shows it). Should one fail again, say what the page, the
  // stored inventory and the server saw.
  // Playwright reads fixtures from the first argument's destructuring; this hook needs none.
  // eslint-disable-next-line no-empty-pattern
  test.afterEach(async ({}, testInfo) => {
    if (testInfo.status === testInfo.expectedStatus || !server) return;
    const mainText = await user
      ?.getByRole('main')
      .innerText({ timeout: 2000 })
      .catch((error: unknown) => `(no main: ${String(error)})`);
    let stored: string;
    try {
      stored = postern(server, 'nodes', 'ls');
    } catch (error) {
      stored = String(error);
    }
    const notable = server.logs.filter(
      (entry) => Number(entry.level) >= 40 || /agent|node/.test(String(entry.msg)),
    );
    const report = [
      `user page: ${user?.url()}`,
      String(mainText),
      `postern nodes ls:\n${stored}`,
      `server log (warnings, node and agent lines):`,
      ...notable.slice(-40).map((entry) => JSON.stringify(entry)),
    ].join('\n');
    await testInfo.attach('diagnosis', { body: report, contentType: 'text/plain' });
    console.log(report);
  });

  test.afterAll(async () => {
    for (const context of contexts) await context.close();
    contexts = [];
    await agent?.stop();
    await sshd?.stop();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  test('an admin invites a user with the access role and the login root from Manage Users', async () => {
    // The first admin, through the invite `postern start` printed.
    const printed = server.logs.find((entry) => typeof entry.inviteUrl === 'string')?.inviteUrl;
    await admin.goto(linkIn(String(printed), 'invite'));
    await choosePassword(admin);
    await registerAuthenticatorApp(admin);
    await expectSignedIn(admin);

    // The Users page sets roles and logins in one dialog, so no CLI is needed here.
    userName = uniqueUser('ursula');
    await admin.goto('/web/users');
    await admin.getByRole('button', { name: 'Create User' }).click();
    const dialog = admin.getByRole('dialog', { name: 'Create User' });
    await dialog.getByLabel('Username', { exact: true }).fill(userName);
    await dialog.getByRole('combobox', { name: 'Roles' }).fill('access');
    await admin.getByRole('option', { name: 'access', exact: true }).click();
    await dialog.getByRole('combobox', { name: 'Logins', exact: true }).fill('root');
    await dialog.getByRole('combobox', { name: 'Logins', exact: true }).press('Enter');
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    const inviteUrl = await admin
      .getByRole('dialog', { name: 'Invite link' })
      .getByLabel('Link to share')
      .inputValue();

    await user.goto(new URL(inviteUrl).pathname);
    await choosePassword(user);
    userSecret = await registerAuthenticatorApp(user);
    await expectSignedIn(user);
  });

  test('the user opens Servers, connects to the Postern host as root and runs a command', async () => {
    await user.getByRole('navigation').getByRole('link', { name: 'Servers' }).click();
    await expect(user).toHaveURL(new RegExp(`${serversPath}$`));
    const builtIn = serverRow(user, 'kind: builtin');
    await expect(builtIn).toContainText(host);
    await expect(builtIn).toContainText('online');

    userConsole = await connect(builtIn, 'root');
    expect(userConsole.url()).toContain(`/web/cluster/${cluster}/console/node/`);
    await expect(userConsole.getByRole('tab', { name: `root@${host}` })).toBeVisible();
    await runInTerminal(userConsole, 'echo $((6*7))-marker');
    await expectOnScreen(userConsole, '42-marker');
    // The terminal's socket runs in its worker (tty/socketWorker.ts), under the page's CSP.
    expect(userConsole.workers().map((w) => w.url())).toContainEqual(
      expect.stringMatching(/\/assets\/socketWorker-[\w-]+\.js$/),
    );
    await runInTerminal(userConsole, showParent);
    await expectOnScreen(userConsole, 'parent: postern.js start');
  });

  test('an observer joins from Active Sessions, sees the screen so far, and cannot type', async ({
    browser,
  }) => {
    // A whole sign-up (password, authenticator) and a join: more than the default 30 s when the
    // machine is loaded (seen once in CI at a load average of 10 on 2 cores).
    test.setTimeout(120_000);
    // A role whose only grant is joining `access` users' SSH sessions as an observer; the
    // observer holds `access` too, like everyone who works with servers.
    const roleName = uniqueUser('observer-');
    const roleFile = path.join(server.dataDir, `${roleName}.yaml`);
    await writeFile(roleFile, observerRole(roleName));
    postern(server, 'create', '-f', roleFile);
    const observerName = uniqueUser('oscar');
    const invite = postern(server, 'users', 'add', observerName, '--roles', `access,${roleName}`);

    const context = await browser.newContext({ baseURL: server.url });
    contexts.push(context);
    const observer = await context.newPage();
    await observer.goto(linkIn(invite, 'invite'));
    await choosePassword(observer);
    await registerAuthenticatorApp(observer);
    await expectSignedIn(observer);

    await observer.goto(sessionsPath);
    const session = observer.getByRole('main').getByRole('row').filter({ hasText: userName });
    await expect(session).toContainText('root');
    await session.getByRole('button', { name: `Join session on ${host}` }).click();
    [observerConsole] = await Promise.all([
      context.waitForEvent('page'),
      observer.getByRole('menuitem', { name: 'As an observer (read-only)' }).click(),
    ]);
    await expectConnected(observerConsole);
    await expect(observerConsole.getByText('Observing (read-only)')).toBeVisible();
    // Printed before the observer came: it arrives with the current screen.
    await expectOnScreen(observerConsole, '42-marker');
    await expectOnScreen(userConsole, `[${observerName} joined as observer]`);

    await runInTerminal(observerConsole, 'echo typed-by-observer');
    // The owner's next output reaches both screens after anything the observer could have sent,
    // so once it is there, the observer's line would be too.
    await runInTerminal(userConsole, 'echo $((2*3))-after');
    await expectOnScreen(userConsole, '6-after');
    await expectOnScreen(observerConsole, '6-after');
    expect(await screenText(userConsole)).not.toContain('typed-by-observer');
    expect(await screenText(observerConsole)).not.toContain('typed-by-observer');
  });

  test('a lock on the user ends their live session within 5 s, then signs them out', async () => {
    // Signing out waits for the console's token check, which runs every 15 s.
    test.setTimeout(90_000);
    const ended = `disconnected: locked: ${lockMessage}`;
    const userSees = await watchScreenFor(userConsole, ended);
    const observerSees = await watchScreenFor(observerConsole, ended);
    await admin.goto('/web/locks');
    await admin.getByRole('link', { name: 'Create New Lock' }).click();
    await admin.getByRole('combobox', { name: 'Target kind' }).selectOption('user');
    await admin.getByLabel('Target name').fill(userName);
    await admin.getByLabel('Message').fill(lockMessage);
    await admin.getByRole('button', { name: 'Create Lock' }).click();

    await userSees.within(5_000);
    // The session ended for everyone in it, not only for its owner.
    await observerSees.within(5_000);
    await observerConsole.close();

    // The lock ends the user's web session too: the console's next token check (every 15 s)
    // is refused, and every tab of theirs goes to the login page.
    await expect(userConsole).toHaveURL(/\/web\/login/, { timeout: 20_000 });
    await expect(user).toHaveURL(/\/web\/login/);
    await userConsole.close();
  });

  test('the user reaches an agent host and an agentless OpenSSH host from the browser', async () => {
    test.setTimeout(90_000);
    await admin.goto('/web/locks');
    const lock = admin.getByRole('main').getByRole('row').filter({ hasText: userName });
    await lock.getByRole('button', { name: 'Delete' }).click();
    await admin
      .getByRole('dialog', { name: 'Delete Lock' })
      .getByRole('button', { name: 'Delete', exact: true })
      .click();
    await expect(lock).toHaveCount(0);

    // The lock signed the user out (the previous test saw it); they sign in again.
    await signInWithTotp(user, userName, strongPassword, await nextStepCode(userSecret));
    await expectSignedIn(user);

    // An agent, joined with a token, reached through its reverse tunnel.
    const token = /The join token: (\S+)/.exec(
      postern(server, 'tokens', 'add', '--type', 'node'),
    )![1]!;
    agent = await startAgent(server.url, token, 'kind=agent');
    await user.goto(serversPath);
    const agentRow = serverRow(user, 'kind: agent');
    await reloadServersUntil(user, () =>
      expect(agentRow).toContainText('Tunnel', { timeout: 1000 }),
    );
    await expect(agentRow).toContainText('online');
    const agentConsole = await connect(agentRow, 'root');
    await runInTerminal(agentConsole, showParent);
    await expectOnScreen(agentConsole, 'parent: postern.js agent');
    await agentConsole.close();

    // A real sshd that trusts the cluster user CA, registered by hand; its key is pinned now.
    sshd = await startSshd(postern(server, 'ca', 'export', '--type', 'user'));
    postern(server, 'nodes', 'add', '--name', 'openssh-host', '--addr', `127.0.0.1:${sshd.port}`);
    await user.reload();
    const opensshRow = serverRow(user, 'openssh-host');
    await expect(opensshRow).toContainText('OpenSSH');
    await expect(opensshRow).toContainText(`127.0.0.1:${sshd.port}`);
    const opensshConsole = await connect(opensshRow, 'root');
    await runInTerminal(opensshConsole, 'echo $((6*7))-via-openssh');
    await expectOnScreen(opensshConsole, '42-via-openssh');
    await runInTerminal(opensshConsole, showParent);
    await expectOnScreen(opensshConsole, 'parent: sshd');
    await opensshConsole.close();
  });

  test('a stopped agent shows offline on Servers within seconds', async () => {
    expect(await agent!.stop()).toBe(0);
    agent = undefined;
    const agentRow = serverRow(user, 'kind: agent');
    await reloadServersUntil(user, () =>
      expect(agentRow).toContainText('offline', { timeout: 1000 }),
    );
    await expect(serverRow(user, 'kind: builtin')).toContainText('online');
  });
});
