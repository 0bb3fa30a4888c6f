import { createHash, randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { postern } from './support/identity.js';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import { signIn } from './support/session.js';
import { startSshd, type RunningSshd } from './support/sshd.js';
import { expectConnected, expectOnScreen, runInTerminal } from './support/terminal.js';
import { cluster } from './support/shared-server.js';

const role = `kind: role
version: v7
metadata:
  name: file-movers
spec:
  allow:
    logins: [root]
    node_labels: {'*': '*'}
  deny: {}
`;

const maxBytes = 4 * 1024 * 1024;

/** Files this spec leaves in root's home directory, removed at the end. */
const uploaded: string[] = [];

test.describe.serial('file transfer in the web terminal', () => {
  // Several MiB through the browser both ways, on two hosts.
  test.describe.configure({ timeout: 60_000 });
  let server: RunningPostern;
  let sshd: RunningSshd;

  test.beforeAll(async () => {
    server = await startPostern([], { configYaml: `file_transfer: {max_bytes: ${maxBytes}}` });
    const roleFile = path.join(server.dataDir, 'file-movers.yaml');
    await writeFile(roleFile, role);
    postern(server, 'create', '-f', roleFile);
    sshd = await startSshd(postern(server, 'ca', 'export', '--type', 'user'));
    postern(server, 'nodes', 'add', '--name', 'openssh-host', '--addr', `127.0.0.1:${sshd.port}`);
  });

  test.afterAll(async () => {
    await sshd?.stop();
    await server?.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
    for (const file of uploaded) await rm(file, { force: true });
  });

  for (const [kind, serverId, parent] of [
    ['the built-in node', hostname(), 'postern.js start'],
    ['an OpenSSH host', 'openssh-host', 'sshd'],
  ] as const) {
    test(`uploads a file to ${kind} and downloads it back, byte for byte`, async ({ browser }) => {
      const page = await signedIn(browser, server);
      await page.goto(`/web/cluster/${cluster}/console/node/${serverId}/root`);
      await expectConnected(page);
      // The shell's parent names the host kind, so the test knows which one it reached.
      await runInTerminal(page, `echo "parent: $(tr '\\0' ' ' </proc/$PPID/cmdline)"`);
      await expectOnScreen(page, `parent: ${parent === 'sshd' ? 'sshd' : process.execPath}`);

      const name = `xfer-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}.bin`;
      const data = randomBytes(3 * 1024 * 1024 + 11);
      uploaded.push(path.join('/root', name));
      await upload(page, name, data);
      const sha = createHash('sha256').update(data).digest('hex');
      await runInTerminal(page, `sha256sum ~/${name}; wc -c < ~/${name}`);
      await expectOnScreen(page, `${sha}  /root/${name}`);
      await expectOnScreen(page, String(data.length));

      // A relative path starts at the login's home directory.
      const downloaded = await download(page, name);
      expect(downloaded.equals(data)).toBe(true);
    });
  }

  test('shows the limit when a file is too large, and leaves nothing on the server', async ({
    browser,
  }) => {
    const page = await signedIn(browser, server);
    await page.goto(`/web/cluster/${cluster}/console/node/openssh-host/root`);
    await expectConnected(page);
    // Far over (refused from content-length) and just over (cut off while it streams).
    for (const [name, size] of [
      ['far-too-big.bin', 2 * maxBytes],
      ['just-too-big.bin', maxBytes + 1],
    ] as const) {
      await page.getByRole('button', { name: 'Upload files' }).click();
      const dialog = page.getByRole('dialog', { name: 'Upload files' });
      await dialog.getByLabel('Files').setInputFiles({
        name,
        mimeType: 'application/octet-stream',
        buffer: Buffer.alloc(size),
      });
      await dialog.getByRole('button', { name: 'Upload' }).click();
      const row = page.getByRole('listitem', { name: `Upload ${name}` });
      await expect(row.getByRole('alert')).toHaveText(
        `the file is larger than the limit of ${maxBytes} bytes`,
      );
    }
    await runInTerminal(page, 'ls -a ~ | grep -c -e too-big -e postern-upload; echo listed');
    await expectOnScreen(page, '0\nlisted');
  });

  test('shows the reason when a download is refused', async ({ browser }) => {
    const page = await signedIn(browser, server);
    await page.goto(`/web/cluster/${cluster}/console/node/openssh-host/root`);
    await expectConnected(page);
    await page.getByRole('button', { name: 'Download file' }).click();
    const dialog = page.getByRole('dialog', { name: 'Download file' });
    await dialog.getByRole('textbox', { name: /File path/ }).fill('/no/such/file');
    await dialog.getByRole('button', { name: 'Download' }).click();
    const row = page.getByRole('listitem', { name: 'Download file' });
    await expect(row.getByRole('alert')).toHaveText('/no/such/file: no such file or directory');
  });
});

/** A page of a new browser context on the spec's own server, signed in with the role above. */
async function signedIn(browser: Browser, server: RunningPostern): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url, acceptDownloads: true });
  await signIn(context, ['file-movers'], 'fiona', server);
  return context.newPage();
}

/** Upload files → pick the file → Upload, into the default directory (~); waits until done. */
async function upload(page: Page, name: string, data: Buffer) {
  await page.getByRole('button', { name: 'Upload files' }).click();
  const dialog = page.getByRole('dialog', { name: 'Upload files' });
  await expect(dialog.getByRole('textbox', { name: /Destination directory/ })).toHaveValue('~');
  await dialog
    .getByLabel('Files')
    .setInputFiles({ name, mimeType: 'application/octet-stream', buffer: data });
  await dialog.getByRole('button', { name: 'Upload' }).click();
  const row = page.getByRole('listitem', { name: `Upload ${name}` });
  await expect(row.getByRole('status')).toHaveText('Done', { timeout: 30_000 });
}

/** Download file → the path → Download; returns the bytes the browser saved. */
async function download(page: Page, remotePath: string): Promise<Buffer> {
  await page.getByRole('button', { name: 'Download file' }).click();
  const dialog = page.getByRole('dialog', { name: 'Download file' });
  await dialog.getByRole('textbox', { name: /File path/ }).fill(remotePath);
  const [saved] = await Promise.all([
    page.waitForEvent('download'),
    dialog.getByRole('button', { name: 'Download' }).click(),
  ]);
  expect(saved.suggestedFilename()).toBe(path.posix.basename(remotePath));
  const row = page.getByRole('listitem', { name: `Download ${path.posix.basename(remotePath)}` });
  await expect(row.getByRole('status')).toHaveText('Done');
  return readFile((await saved.path())!);
}
