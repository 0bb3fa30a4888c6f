import { rm } from 'node:fs/promises';
import { test, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { expect } from './identity.js';
import type { RunningPostern } from './postern-process.js';
import { signUpInOwnContext, startWithRolesAndNode } from './roles-and-node.js';
import { serverRow } from './servers-page.js';
import { cluster } from './shared-server.js';
import type { RunningSshd } from './sshd.js';
import { startTcpRelay, type TcpRelay } from './tcp-relay.js';
import { expectConnected } from './terminal.js';

/** A server of the describe's own, its node, and a relay in front of it whose network breaks. */
export interface RelayedTerminalWorld {
  server: RunningPostern;
  relay: TcpRelay;
  /** Browser contexts the tests opened: closed after the describe. */
  contexts: BrowserContext[];
}

/**
 * Registers, in the calling describe, a Postern server with a real sshd as `node` (labelled
 * `<label>: e2e`, reached as root by the role `shell`) and a TCP relay in front of it, and
 * returns the world the tests use once the hooks ran.
 */
export function relayedTerminalWorld(node: string, label: string): () => RelayedTerminalWorld {
  let world: RelayedTerminalWorld | undefined;
  let sshd: RunningSshd | undefined;
  const roles = `kind: role
version: v7
metadata:
  name: shell
spec:
  allow:
    logins: [root]
    node_labels: {${label}: e2e}
  deny: {}
`;
  test.beforeAll(async () => {
    const started = await startWithRolesAndNode({
      roles,
      node: { name: node, labels: `${label}=e2e` },
    });
    sshd = started.sshd;
    const relay = await startTcpRelay({
      host: '127.0.0.1',
      port: Number(new URL(started.server.url).port),
    });
    world = { server: started.server, relay, contexts: [] };
  });
  test.afterAll(async () => {
    for (const context of world?.contexts ?? []) await context.close();
    await world?.relay.close();
    await sshd?.stop();
    await world?.server.stop();
    if (world) await rm(world.server.dataDir, { recursive: true, force: true });
  });
  return () => {
    if (!world) throw new Error('the relayed terminal world is not started yet');
    return world;
  };
}

/**
 * `owner` (role `shell`) signed up in a browser context whose every byte goes through the relay,
 * and `auditor` (role `auditor`) in one of their own that reaches the server directly.
 */
export async function ownerBehindRelayAndAuditor(
  browser: Browser,
  { server, relay, contexts }: RelayedTerminalWorld,
  owner: string,
  auditor: string,
): Promise<{ page: Page; auditorPage: Page }> {
  const page = await signUpInOwnContext(
    browser,
    { ...server, url: relay.url },
    contexts,
    owner,
    'shell',
  );
  const auditorPage = await signUpInOwnContext(browser, server, contexts, auditor, 'auditor');
  return { page, auditorPage };
}

/** Connect → root on the node's row; the console opens in a new tab. */
export async function connectAsRoot(page: Page, node: string): Promise<Page> {
  await page.goto(`/web/cluster/${cluster}/nodes`);
  const row = serverRow(page, node);
  await row.getByRole('button', { name: /^Connect to / }).click();
  const [consolePage] = await Promise.all([
    page.context().waitForEvent('page'),
    page.getByRole('menuitem', { name: 'root', exact: true }).click(),
  ]);
  await expectConnected(consolePage);
  return consolePage;
}

export { expect };
