import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { expectSignedIn, identityConfig, linkIn, postern } from './identity.js';
import { startPostern, type RunningPostern } from './postern-process.js';
import { startSshd, type RunningSshd } from './sshd.js';
import { addVirtualAuthenticator } from './webauthn.js';

/**
 * A server of the spec's own (so its users can have plain names), its roles created with
 * `postern create -f`, and a real sshd that trusts the cluster's user CA, added as a node.
 * `extraArgs` go to `postern start` after the defaults (`--cluster-name` there overrides the
 * e2e cluster's name).
 */
export async function startWithRolesAndNode(options: {
  roles: string;
  node: { name: string; labels: string };
  extraArgs?: string[];
}): Promise<{ server: RunningPostern; sshd: RunningSshd }> {
  const server = await startPostern(['--insecure-no-tls', ...(options.extraArgs ?? [])], {
    configYaml: identityConfig(),
  });
  const file = path.join(server.dataDir, 'spec-roles.yaml');
  await writeFile(file, options.roles);
  postern(server, 'create', '-f', file);
  const sshd = await startSshd(postern(server, 'ca', 'export', '--type', 'user'));
  const { name, labels } = options.node;
  postern(
    server,
    'nodes',
    'add',
    '--name',
    name,
    '--addr',
    `127.0.0.1:${sshd.port}`,
    '--labels',
    labels,
  );
  return { server, sshd };
}

/** An invited user who registers a passkey, in a browser context of their own (kept in `contexts`). */
export async function signUpInOwnContext(
  browser: Browser,
  server: RunningPostern,
  contexts: BrowserContext[],
  name: string,
  roleNames: string,
): Promise<Page> {
  const context = await browser.newContext({ baseURL: server.url });
  contexts.push(context);
  const page = await context.newPage();
  await addVirtualAuthenticator(context, page, { residentKey: true });
  await page.goto(linkIn(postern(server, 'users', 'add', name, '--roles', roleNames), 'invite'));
  await page.getByRole('button', { name: 'Use a passkey instead of a password' }).click();
  await page.getByRole('button', { name: 'Register passkey', exact: true }).click();
  await expectSignedIn(page);
  return page;
}
