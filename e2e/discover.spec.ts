import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, Page } from '@playwright/test';
import { expect, postern, signUpWithPasskey, testWithOwnServer } from './support/identity.js';
import { posternBin, type RunningPostern } from './support/postern-process.js';
import { cluster } from './support/shared-server.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

// Agents that join stay listed as servers (offline) after the file: a server of its own keeps
// them out of the Servers page of the specs that share one.
const test = testWithOwnServer();

// Enroll New Resource from end to end: the console makes the join token and writes the command,
// the command (curl to the install link, piped to bash) starts a real agent serving a real app,
// and the console sees it join. The spec's server is plain HTTP on loopback.
test.describe.configure({ timeout: 90_000 });

let app: Server;
let appPort: number;
/** Agents the tests started (each leads a process group of its own). */
const agents: ChildProcess[] = [];
const dataDirs: string[] = [];

test.beforeAll(async () => {
  app = createServer((_, res) => res.end('enrolled app'));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  appPort = (app.address() as { port: number }).port;
});

// With fullyParallel, a worker runs these hooks around each test it takes from this file: stop
// only what this round started, and take it off the list.
test.afterAll(async () => {
  for (const child of agents.splice(0)) stopGroup(child);
  await new Promise((resolve) => app.close(resolve));
  for (const dir of dataDirs) await rm(dir, { recursive: true, force: true });
});

/** Ends an agent's process group; one that has ended already is left alone. */
function stopGroup(child: ChildProcess) {
  if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** A data dir for an agent the test starts, removed after the file. */
async function newDataDir(): Promise<string> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'postern-enrolled-'));
  dataDirs.push(dataDir);
  return dataDir;
}

/**
 * Runs the command the page shows, as its host would. Only `sudo` goes: the tests run as root
 * already, and sudo would drop the environment that points the script at this build's postern
 * and keeps the agent in the foreground instead of making it a systemd service.
 */
async function runOnHost(command: string): Promise<ChildProcess> {
  const dataDir = await newDataDir();
  const child = spawn('bash', ['-c', command.replace('| sudo bash', '| bash')], {
    env: {
      ...process.env,
      POSTERN_BIN: posternBin,
      POSTERN_DATA_DIR: dataDir,
      POSTERN_FOREGROUND: '1',
    },
    detached: true,
    stdio: 'ignore',
  });
  return child;
}

/** An admin who may create join tokens and list everything, signed in with a passkey. */
async function signUpAdmin(page: Page, context: BrowserContext, server: RunningPostern) {
  await addVirtualAuthenticator(context, page, { residentKey: true });
  await signUpWithPasskey(page, server, 'editor,access');
}

/** An app made with `postern create -f`, as an admin would. */
async function createApp(server: RunningPostern, name: string, uri: string) {
  const file = path.join(server.dataDir, `${name}.yaml`);
  await writeFile(file, `kind: app\nmetadata:\n  name: ${name}\nspec:\n  uri: ${uri}\n`);
  postern(server, 'create', '-f', file);
}

/** Whether the server lists the app to the signed-in page (what the page's own check asks). */
async function listsApp(page: Page, name: string): Promise<boolean> {
  return page.evaluate(
    async ([clusterId, wanted]) => {
      const token = JSON.parse(localStorage.getItem('grv_teleport_token') ?? '{}').accessToken;
      const response = await fetch(`/v1/webapi/sites/${clusterId}/apps?search=${wanted}`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      if (!response.ok) return false;
      const { items } = (await response.json()) as { items: { name: string }[] };
      return items.some((app) => app.name === wanted);
    },
    [cluster, name] as const,
  );
}

test('an admin enrols an app: one command on its host, and the console sees it join', async ({
  page,
  context,
  server,
}) => {
  await signUpAdmin(page, context, server);
  await page
    .getByRole('navigation', { name: 'Main navigation' })
    .getByRole('link', { name: 'Enroll New Resource' })
    .click();
  await expect(page.getByRole('heading', { name: 'Enroll New Resource', level: 2 })).toBeVisible();

  await page.getByRole('button', { name: 'Application' }).click();
  const name = `enrolled-${Date.now().toString(36)}`;
  await page.getByRole('textbox', { name: 'Name' }).fill(name);
  await page.getByRole('textbox', { name: 'Address' }).fill(`http://127.0.0.1:${appPort}`);
  await page.getByRole('button', { name: 'Generate command' }).click();

  const command = (await page.getByLabel('Enroll command').innerText()).trim();
  expect(command).toMatch(
    new RegExp(
      `^curl -fsSL '${server.url}/scripts/[0-9a-f]{32}/install-app\\.sh\\?name=${name}&uri=[^']+' \\| sudo bash$`,
    ),
  );
  await expect(page.getByText('Waiting for the application to join…')).toBeVisible();

  agents.push(await runOnHost(command));
  await expect(page.getByText(`${name} joined`)).toBeVisible({ timeout: 30_000 });
  await page.getByRole('link', { name: 'View it in the list' }).click();
  await expect(page).toHaveURL(new RegExp(`/web/cluster/[^/]+/apps\\?search=${name}$`));
  await expect(page.getByRole('row', { name: new RegExp(name) })).toBeVisible();
});

test('a server joins with the agent command, and the page finds it by the token it used', async ({
  page,
  context,
  server,
}) => {
  await signUpAdmin(page, context, server);
  await page.goto('/web/discover');
  await page.getByRole('button', { name: 'Server with the Postern agent' }).click();
  const team = `t${Date.now().toString(36)}`;
  await page.getByRole('textbox', { name: 'Labels' }).fill(`team=${team}`);
  await page.getByRole('button', { name: 'Generate command' }).click();
  const command = (await page.getByLabel('Enroll command').innerText()).trim();
  expect(command).toMatch(
    new RegExp(
      `^sudo postern agent --proxy ${server.url} --token [0-9a-f]{32} --data-dir /var/lib/postern/agent$`,
    ),
  );

  // The same command, with this build's postern for `postern` and a data dir of the test's own.
  const dataDir = await newDataDir();
  const onHost = command
    .replace(/^sudo postern /, `${process.execPath} ${posternBin} `)
    .replace('/var/lib/postern/agent', dataDir);
  agents.push(spawn('bash', ['-c', `exec ${onHost}`], { detached: true, stdio: 'ignore' }));
  await expect(page.getByText(`${hostname()} joined`)).toBeVisible({ timeout: 30_000 });
  // The token's labels became the server's.
  await page.getByRole('link', { name: 'View it in the list' }).click();
  await expect(page.getByRole('main').getByText(`team: ${team}`)).toBeVisible();
});

test('a second app under a name already enrolled is refused before any token is made', async ({
  page,
  context,
  server,
}) => {
  await signUpAdmin(page, context, server);
  await page.goto('/web/discover');
  await page.getByRole('button', { name: 'Application' }).click();
  // An app made with the CLI is as enrolled as one an agent serves.
  const taken = `taken-${Date.now().toString(36)}`;
  const tokens: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/v1/webapi/token'))
      tokens.push(request.url());
  });
  await createApp(server, taken, `http://127.0.0.1:${appPort}`);
  // The app reached storage from the command line; the server's watch sees another process's
  // writes by polling, so the page's check could run before it (a CI failure). Wait until the
  // server lists it, as the page's own check asks.
  await expect.poll(() => listsApp(page, taken)).toBe(true);
  await page.getByRole('textbox', { name: 'Name' }).fill(taken);
  await page.getByRole('textbox', { name: 'Address' }).fill(`http://127.0.0.1:${appPort}`);
  await page.getByRole('button', { name: 'Generate command' }).click();
  await expect(
    page.getByText(`an application named ${taken} is already enrolled: choose another name`),
  ).toBeVisible();
  expect(tokens).toEqual([]);
});
