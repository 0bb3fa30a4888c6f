import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import {
  FakeChatModel,
  type FakeRequest,
  type FakeTurn,
} from '../packages/server/src/wings/servers/assist/fake-chat-model.testkit.js';
import { postern } from './support/identity.js';
import { startPostern, type RunningPostern } from './support/postern-process.js';
import { signIn } from './support/session.js';
import { startSshd, type RunningSshd } from './support/sshd.js';
import { playerScreen } from './support/terminal.js';

// The assistant in Chromium: a question, the servers looked up, a proposed command run on a real
// OpenSSH server as the user's recorded session, the model's summary, and all of it still there
// after a reload. The model is a FAKE chat API (none can run here) that follows the script below.

const role = `kind: role
version: v7
metadata:
  name: assisted-ops
spec:
  allow:
    logins: [root]
    node_labels: {'*': '*'}
    rules:
      - resources: [assistant]
        verbs: [list, read, create, update, delete]
      - resources: [session]
        verbs: [list, read]
        where: contains(session.participants, user.metadata.name)
`;

function script(request: FakeRequest): FakeTurn {
  const first = String(request.messages[0]?.content ?? '');
  if (first.startsWith('Write a title')) return { text: 'Hello from the OpenSSH host' };
  const last = request.messages.at(-1)!;
  const text = String(last.content ?? '');
  if (last.role === 'user' && text.startsWith('Summarise')) {
    return { text: 'openssh-host printed `hello-42`: all is well.' };
  }
  if (last.role === 'user') {
    return {
      text: 'Let me look at your servers.',
      toolCalls: [{ name: 'list_servers', arguments: {} }],
    };
  }
  return {
    toolCalls: [
      {
        name: 'propose_command',
        arguments: { command: 'echo hello-$((6*7))', servers: ['openssh-host'], login: 'root' },
      },
    ],
  };
}

test.describe.serial('the assistant', () => {
  test.describe.configure({ timeout: 60_000 });
  const model = new FakeChatModel(script);
  let server: RunningPostern;
  let sshd: RunningSshd;

  test.beforeAll(async () => {
    const apiUrl = await model.start();
    server = await startPostern([], {
      configYaml: `assist: {openai: {api_url: '${apiUrl}', model: fake-model}}`,
    });
    const roleFile = path.join(server.dataDir, 'assisted-ops.yaml');
    await writeFile(roleFile, role);
    postern(server, 'create', '-f', roleFile);
    sshd = await startSshd(postern(server, 'ca', 'export', '--type', 'user'));
    postern(server, 'nodes', 'add', '--name', 'openssh-host', '--addr', `127.0.0.1:${sshd.port}`);
  });

  test.afterAll(async () => {
    await sshd?.stop();
    await server?.stop();
    await model.stop();
    if (server) await rm(server.dataDir, { recursive: true, force: true });
  });

  test('proposes a command, runs it on the server when asked, and summarises it', async ({
    browser,
  }) => {
    const context = await browser.newContext({ baseURL: server.url });
    await signIn(context, ['assisted-ops'], 'ada', server);
    const page = await context.newPage();
    await page.goto('/web');
    await page.getByRole('link', { name: 'Assist' }).click();
    await page.getByRole('button', { name: 'New conversation' }).first().click();
    await expect(page).toHaveURL(/\/web\/assist\/[0-9a-f-]{36}$/);

    const message = page.getByRole('textbox', { name: 'Message' });
    await expect(message).toBeEnabled();
    await message.fill('say hello from the OpenSSH host');
    await message.press('Enter');

    const proposal = page.getByRole('article', { name: 'Proposed command' });
    await expect(proposal.getByRole('textbox', { name: 'Command' })).toHaveValue(
      'echo hello-$((6*7))',
    );
    await expect(proposal.getByRole('checkbox', { name: 'openssh-host' })).toBeChecked();
    // The first message named the conversation.
    const conversations = page.getByRole('navigation', { name: 'Conversations' });
    await expect(conversations.getByText('Hello from the OpenSSH host')).toBeVisible();

    await proposal.getByRole('button', { name: 'Run' }).click();
    const output = page.getByRole('region', { name: 'Output of openssh-host' });
    await expect(output.getByText('hello-42')).toBeVisible();
    await expect(output.getByText('exit code 0')).toBeVisible();
    await expect(page.getByRole('article', { name: 'Summary' })).toContainText(
      'openssh-host printed hello-42: all is well.',
    );
    const recording = output.getByRole('link', { name: 'Recording of openssh-host' });
    const href = (await recording.getAttribute('href')) ?? '';
    expect(href).toMatch(/\/web\/cluster\/[^/]+\/session\/[0-9a-f-]{36}\?recordingType=ssh$/);

    // All of it was stored: after a reload the run's output and the summary are still there.
    await page.reload();
    await expect(page.getByRole('region', { name: 'Output of openssh-host' })).toContainText(
      'hello-42',
    );
    await expect(page.getByRole('article', { name: 'Summary' })).toBeVisible();

    // The run was a session of ada's like any other: its recording plays the command's output.
    await page.goto(href);
    await expect.poll(() => playerScreen(page), { timeout: 20_000 }).toContain('hello-42');
    await context.close();
  });
});
