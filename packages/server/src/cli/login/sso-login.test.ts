import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiPaths, ssoErrorRoutes } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { TestBrowser } from '../../testing/browser.testkit.js';
import {
  startTestOidcProvider,
  type TestOidcProvider,
} from '../../testing/oidc-provider.testkit.js';
import { createOpsRole } from '../../testing/ssh-login.testkit.js';
import { hostActor } from '../../access-control/access/actor.js';

/**
 * The built CLI (`npx tsc -b packages/server` first) run as a user would, against a listening
 * test app with an OIDC connector at the real oidc-provider; the TestBrowser plays the browser.
 */
const posternBin = fileURLToPath(new URL('../../../bin/postern.js', import.meta.url));

let app: TestApp;
let idp: TestOidcProvider;
let proxy: string;
let dir: string;

beforeAll(async () => {
  app = await createTestApp();
  proxy = (await app.listenOnLoopback()).baseUrl;
  await createOpsRole(app);
  idp = await startTestOidcProvider({
    redirectUris: ['https://proxy.test:3080/v1/webapi/oidc/callback'],
    accounts: {
      alice: {
        password: 'alice-pw',
        claims: { email: 'alice@example.com', preferred_username: 'alice', groups: ['ops'] },
      },
    },
  });
  await app.services.connectors.create(
    'oidc',
    `kind: oidc
version: v3
metadata: {name: corp-idp}
spec:
  issuer_url: ${idp.issuer}
  client_id: ${idp.clientId}
  client_secret: ${idp.clientSecret}
  scope: [email, profile, groups]
  claims_to_roles: [{claim: groups, value: ops, roles: [ops]}]
  claims_to_traits: [{claim: preferred_username, trait: logins}]
`,
    hostActor('root'),
  );
  // ping reads the connectors from a watched cache: wait until it lists this one.
  await vi.waitFor(async () => {
    const ping = await (await fetch(`${proxy}${apiPaths.ping}`)).json();
    expect(ping.auth.providers).toContainEqual(expect.objectContaining({ name: 'corp-idp' }));
  });
  dir = await mkdtemp(path.join(tmpdir(), 'postern-sso-cli-'));
}, 30_000);
afterAll(async () => {
  await app.close();
  await idp.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface RunningCli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

function postern(home: string, args: string[]): RunningCli {
  const child = spawn(process.execPath, [posternBin, ...args], {
    env: { ...process.env, POSTERN_HOME: path.join(home, '.postern'), HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

describe('postern login --auth (the built CLI)', () => {
  it('signs in at the provider in a browser and writes the login, ending on login_success', async () => {
    const home = path.join(dir, 'alice-home');
    const cli = postern(home, ['login', '--proxy', proxy, '--auth', 'corp-idp', '--no-browser']);
    try {
      await expect
        .poll(() => cli.stdout(), { timeout: 20_000 })
        .toMatch(/Open this URL in a browser to sign in: \S+/);
      const url = /Open this URL in a browser to sign in: (\S+)/.exec(cli.stdout())![1]!;
      expect(url).toMatch(/^https:\/\/proxy\.test:3080\/v1\/webapi\/oidc\/login\/console\//);

      const browser = new TestBrowser(app);
      const form = await browser.go(url);
      expect(form.url.startsWith(`${idp.issuer}/interaction/`), form.url).toBe(true);
      const last = await browser.submit(
        `${form.url}/login`,
        { login: 'alice', password: 'alice-pw' },
        (next) => next.startsWith(`${proxy}/`),
      );
      // The CLI's loopback answered the browser with the success page, on the proxy it used.
      expect(last.url).toBe(`${proxy}${ssoErrorRoutes.success}`);
      expect(await cli.exit, cli.stderr()).toBe(0);
    } finally {
      cli.child.kill();
    }

    expect(cli.stdout()).toMatch(/^Logged in as alice@example\.com to test-cluster/m);
    const posternHome = path.join(home, '.postern');
    const keyPath = path.join(posternHome, 'keys', '127.0.0.1', 'alice@example.com');
    expect(await readFile(keyPath, 'utf8')).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    expect((await stat(keyPath)).mode & 0o777).toBe(0o600);
    expect(await readFile(`${keyPath}-cert.pub`, 'utf8')).toMatch(
      /^ssh-ed25519-cert-v01@openssh\.com /,
    );
    const profile = JSON.parse(await readFile(path.join(posternHome, 'profile.json'), 'utf8'));
    expect(profile).toMatchObject({
      proxy,
      user: 'alice@example.com',
      cluster: 'test-cluster',
      key_path: keyPath,
    });
    expect(await readFile(path.join(posternHome, 'ssh_config'), 'utf8')).toContain(
      `IdentityFile ${keyPath}`,
    );
  }, 60_000);

  it('stops cleanly on ctrl-c while it waits for the browser', async () => {
    const home = path.join(dir, 'cancel-home');
    const cli = postern(home, ['login', '--proxy', proxy, '--auth', 'corp-idp', '--no-browser']);
    try {
      await expect.poll(() => cli.stdout(), { timeout: 20_000 }).toMatch(/Open this URL/);
      cli.child.kill('SIGINT');
      expect(await cli.exit).toBe(2);
    } finally {
      cli.child.kill();
    }
    expect(cli.stderr().trim()).toBe('postern: login cancelled');
    await expect(stat(path.join(home, '.postern', 'profile.json'))).rejects.toThrow();
  }, 30_000);

  it('refuses an unknown connector in one line, exit code 2', async () => {
    const cli = postern(path.join(dir, 'other-home'), [
      ...['login', '--proxy', proxy, '--auth', 'nope', '--no-browser'],
    ]);
    expect(await cli.exit).toBe(2);
    expect(cli.stderr().trim()).toBe(
      'postern: the proxy has no connector named nope (its connectors: corp-idp)',
    );
  }, 30_000);
});
