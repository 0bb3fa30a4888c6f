import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { RunningPostern } from './support/postern-process.js';
import { posternBin } from './support/postern-process.js';
import { expect, postern, signUpWithPasskey, test } from './support/identity.js';
import { addVirtualAuthenticator } from './support/webauthn.js';

interface CliRun {
  home: string;
  /** The approval link the CLI printed, as a path (the test's baseURL has the origin). */
  approvalPath: Promise<string>;
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `postern login --headless` as a user runs it, in its own POSTERN_HOME. */
async function headlessLogin(server: RunningPostern, user: string): Promise<CliRun> {
  const home = await mkdtemp(path.join(tmpdir(), 'postern-home-'));
  const child = spawn(
    process.execPath,
    [posternBin, 'login', '--headless', '--proxy', server.url, '--user', user, '--no-ssh-config'],
    {
      env: { ...process.env, POSTERN_HOME: path.join(home, '.postern'), HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const approvalPath = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match =
        /Complete the login in your browser: https?:\/\/\S+?(\/web\/headless\/\w+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error(`the CLI ended without a link: ${stdout}${stderr}`)));
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { home, approvalPath, exit };
}

test.describe('postern login --headless, approved in the browser', () => {
  test('Approve with the passkey: the CLI exits 0 with a certificate OpenSSH reads', async ({
    page,
    context,
    server,
  }) => {
    test.setTimeout(120_000);
    await addVirtualAuthenticator(context, page, { residentKey: true });
    const user = await signUpWithPasskey(page, server);
    postern(server, 'users', 'update', user, '--set-logins', 'root,deploy');
    const cli = await headlessLogin(server, user);
    try {
      await page.goto(await cli.approvalPath);
      await expect(page.getByText(/Someone has initiated a command from/)).toContainText(user);
      await page.getByRole('button', { name: 'Approve', exact: true }).click();
      await expect(page.getByRole('status')).toContainText('You can close this tab');

      const result = await cli.exit;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(`Logged in as ${user} to e2e-cluster`);
      const certPath = path.join(cli.home, '.postern', 'keys', 'localhost', `${user}-cert.pub`);
      const described = spawnSync('ssh-keygen', ['-L', '-f', certPath], { encoding: 'utf8' });
      expect(described.status, described.stderr).toBe(0);
      expect(described.stdout).toContain(`Key ID: "${user}"`);
      expect(described.stdout).toMatch(/Principals:\s+deploy\s+root/);
      const profile = JSON.parse(
        await readFile(path.join(cli.home, '.postern', 'profile.json'), 'utf8'),
      ) as { user: string; cluster: string };
      expect(profile).toMatchObject({ user, cluster: 'e2e-cluster' });
    } finally {
      await rm(cli.home, { recursive: true, force: true });
    }
  });

  test('Reject: the CLI exits non-zero and says the login was denied', async ({
    page,
    context,
    server,
  }) => {
    test.setTimeout(120_000);
    await addVirtualAuthenticator(context, page, { residentKey: true });
    const user = await signUpWithPasskey(page, server);
    const cli = await headlessLogin(server, user);
    try {
      await page.goto(await cli.approvalPath);
      await page.getByRole('button', { name: 'Reject', exact: true }).click();
      await expect(page.getByRole('status')).toContainText('rejected');
      const result = await cli.exit;
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/denied/);
    } finally {
      await rm(cli.home, { recursive: true, force: true });
    }
  });
});
