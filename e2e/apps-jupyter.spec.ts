import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page, WebSocket } from '@playwright/test';
import { logout, postern } from './support/identity.js';
import { expect, proxyHost, signUp, test } from './support/apps-world.js';
import { startJupyter, type RunningJupyter } from './support/jupyter.js';

// A real web application from Debian's packages behind Postern: Jupyter Notebook, which keeps an
// `_xsrf` cookie of its own and runs code over a WebSocket to its kernel.

const name = 'notebook';

// One Jupyter for the file, added to the apps proxy with `postern create -f` (an app is a
// resource like any other); a kernel start is slow on a busy machine, hence the budget.
test.describe.configure({ mode: 'default', timeout: 180_000 });

let jupyter: RunningJupyter;

test.beforeAll(async ({ world }) => {
  jupyter = await startJupyter(`https://${name}.${proxyHost}:${world.port}`);
  const file = path.join(world.server.dataDir, 'notebook-app.yaml');
  await writeFile(
    file,
    `kind: app
version: v3
metadata:
  name: ${name}
  description: Jupyter Notebook
  labels: {env: e2e}
spec:
  uri: ${jupyter.uri}
`,
  );
  postern(world.server, 'create', '-f', file);
});

// Playwright reads fixture use from this destructuring, so it must stay an object.
// eslint-disable-next-line no-empty-pattern
test.afterEach(async ({}, testInfo) => {
  if (testInfo.status !== testInfo.expectedStatus && jupyter) {
    await testInfo.attach('jupyter log', { body: jupyter.output(), contentType: 'text/plain' });
    console.log(jupyter.output());
  }
});

test.afterAll(async () => {
  await jupyter?.stop();
});

/** Runs the code in the notebook's selected cell and waits for its output. */
async function runCell(page: Page, code: string, output: string) {
  const cell = page.locator('.cell.selected');
  await cell.locator('.CodeMirror').click();
  await page.keyboard.type(code);
  await page.keyboard.press('Shift+Enter');
  await expect(page.locator('.output_area pre', { hasText: output })).toBeVisible();
}

test('a notebook opens through the proxy, runs code over its kernel WebSocket and saves with its own cookie; signing out ends it', async ({
  page,
  context,
  world,
}) => {
  await signUp(page, world, 'dash-users');
  const origin = `https://${name}.${proxyHost}:${world.port}`;
  const notebook = await context.newPage();
  const kernelSockets: WebSocket[] = [];
  notebook.on('websocket', (socket) => {
    if (socket.url().includes('/api/kernels/')) kernelSockets.push(socket);
  });

  // Straight to the notebook's URL: the launcher signs it in and lands on the same path.
  await notebook.goto(`${origin}/notebooks/e2e.ipynb`);
  // Three hops (app host, the console's launcher page and its call, the exchange): a busy
  // machine takes more than the default 10 s to load the launcher's page.
  await expect(notebook).toHaveURL(`${origin}/notebooks/e2e.ipynb`, { timeout: 30_000 });
  await expect(notebook.locator('#kernel_indicator_icon')).toHaveClass(/kernel_idle_icon/, {
    timeout: 90_000,
  });
  await runCell(notebook, 'print(6*7)', '42');
  expect(kernelSockets.length).toBeGreaterThan(0);
  const socket = kernelSockets.at(-1)!;
  expect(socket.isClosed()).toBe(false);

  // Still up a few seconds later: the same socket carries the next cell.
  await notebook.waitForTimeout(3_000);
  await runCell(notebook, 'print("still-" + "here")', 'still-here');
  expect(socket.isClosed()).toBe(false);

  // Saving is a PUT that Jupyter accepts only with its `_xsrf` cookie echoed: the app's own
  // cookies pass through, Postern's never reach it.
  await notebook.keyboard.press('Control+S');
  await expect
    .poll(async () => readFile(path.join(jupyter.dir, 'e2e.ipynb'), 'utf8'))
    .toContain('print(6*7)');
  const cookieNames = (await context.cookies(origin)).map((cookie) => cookie.name);
  expect(cookieNames).toEqual(expect.arrayContaining(['_xsrf', '__Host-postern-app']));

  // Signing out of the console closes the kernel's WebSocket; a reload asks for a sign-in.
  const closed = socket.isClosed() ? Promise.resolve() : socket.waitForEvent('close');
  await page.bringToFront();
  await logout(page);
  await closed;
  await notebook.reload();
  await expect(notebook).toHaveURL(new RegExp(`^${world.consoleUrl}/web/login\\?`));
});
