// @peculiar/x509 (the SAML test IdP's certificate) needs the Reflect polyfill loaded before it.
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from '@playwright/test';
import { posternBin, type RunningPostern } from './support/postern-process.js';
import { oidcConnectorFor, signInAtProvider, test, visitor } from './support/sso.js';

// `postern login --auth` against a connector made on the screen (docs/cli-login.md).
/** `postern login --auth NAME --no-browser` as a user runs it, in its own POSTERN_HOME. */
async function cliSsoLogin(server: RunningPostern, connector: string) {
  const home = await mkdtemp(path.join(tmpdir(), 'postern-home-'));
  const child = spawn(
    process.execPath,
    [posternBin, 'login', '--proxy', server.url, '--auth', connector, '--no-browser'],
    {
      env: { ...process.env, POSTERN_HOME: path.join(home, '.postern'), HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /Open this URL in a browser to sign in: (\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once('exit', () => reject(new Error(`the CLI ended without a link: ${stdout}${stderr}`)));
  });
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { home, url, exit, kill: () => child.kill() };
}

test.describe('single sign-on from the command line', () => {
  test('postern login --auth: the printed link, the provider in Chromium, the Success page; the CLI exits 0', async ({
    page,
    browser,
    server,
  }) => {
    test.setTimeout(120_000);
    const { provider, name } = await oidcConnectorFor(
      page,
      server,
      { gina: { password: 'gina-pw', claims: { email: 'gina@example.com', groups: ['dev-ops'] } } },
      'oidc-cli-',
    );
    let cli: Awaited<ReturnType<typeof cliSsoLogin>> | undefined;
    try {
      cli = await cliSsoLogin(server, name);
      const link = await cli.url;
      expect(link).toMatch(new RegExp(`^${server.url}/v1/webapi/oidc/login/console/[\\w-]{43}$`));

      // Gina, in a browser with no session: the provider's form, then back to the CLI's
      // loopback, which sends her on to the Success page once the certificate is written.
      const gina = await visitor(browser, server);
      await gina.page.goto(link);
      await expect(gina.page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
      await signInAtProvider(gina.page, 'gina', 'gina-pw');
      await expect(gina.page).toHaveURL(`${server.url}/web/msg/info/login_success`);
      await expect(gina.page.getByRole('heading', { name: 'Success' })).toBeVisible();
      await expect(gina.page).toHaveTitle('Success');
      // No web session was made for the CLI's sign-in.
      expect(
        (await gina.context.cookies()).some((cookie) => cookie.name === '__Host-session'),
      ).toBe(false);
      await gina.context.close();

      const { code, stdout, stderr } = await cli.exit;
      expect(code, stderr).toBe(0);
      expect(stdout).toMatch(/^Logged in as gina@example\.com to e2e-cluster/m);
      const profile = JSON.parse(
        await readFile(path.join(cli.home, '.postern', 'profile.json'), 'utf8'),
      ) as { user: string; cert_path: string };
      expect(profile.user).toBe('gina@example.com');
      expect(await readFile(profile.cert_path, 'utf8')).toMatch(
        /^ssh-ed25519-cert-v01@openssh\.com /,
      );
    } finally {
      cli?.kill();
      if (cli) await rm(cli.home, { recursive: true, force: true });
      await provider.close();
    }
  });
});
