import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AuditEvent } from '../audit/index.js';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { generateEd25519Key } from '../../ssh/keys.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { openSshClient, type OpenSshClientSetup } from '../../testing/openssh-client.testkit.js';
import { startTestSshProxy } from '../../testing/ssh-proxy.testkit.js';
import {
  startTerminalFixture,
  type TerminalFixture,
} from '../../testing/terminal-fixture.testkit.js';
import { connectLeaf } from './trusted-clusters.testkit.js';

/**
 * A root cluster and a leaf that trusts it, each with its SSH proxy, and the leaf with a real
 * sshd as its server `test-host`: stock OpenSSH reaches it as `root@test-host.leaf` through the
 * root's jump host. `roleMap` is the leaf's (`leafRole` is its role allowing `root` everywhere).
 */
export interface RootAndLeaf {
  root: TestApp;
  rootPort: number;
  leaf: TerminalFixture;
  /** A root user's ssh client, with known_hosts as `postern login` on the root writes it. */
  /**
   * A stock ssh client of the root's user; `marks`: the MFA device its login was proven with,
   * the access requests its certificate assumed.
   */
  clientOf(
    user: string,
    roles: string[],
    marks?: { mfaDevice?: string; accessRequests?: string[] },
  ): Promise<OpenSshClientSetup>;
  /** The real ssh at INFO, so the proxy's banner (a refusal's reason) reaches stderr. */
  ssh(
    client: OpenSshClientSetup,
    target: string,
    command: string,
    options?: string[],
  ): ReturnType<OpenSshClientSetup['run']>;
  leafEvents(): Promise<AuditEvent[]>;
  rootEvents(): Promise<AuditEvent[]>;
  stop(): Promise<void>;
}

export async function startRootAndLeaf(
  roleMap: (leafRole: string) => string,
): Promise<RootAndLeaf> {
  const root = await createTestApp({ clusterName: 'root' });
  const listening = await root.listenOnLoopback();
  const rootSsh = await startTestSshProxy(root);
  const leaf = await startTerminalFixture({ clusterName: 'leaf', heartbeatIntervalMs: 300 });
  // On the leaf's clock, which per-session MFA tests move with the root's.
  const leafSsh = await startTestSshProxy(leaf.app, { now: () => leaf.app.clock.now() });
  await connectLeaf(root, listening.baseUrl, leaf.app, roleMap(leaf.role));
  // The leaf's host CA reaches the root with its heartbeats.
  await eventually(() => root.context.clusterSsh.hostSigners().length === 1, 20_000, 'the leaf CA');
  const clients: OpenSshClientSetup[] = [];
  const everything = { from: new Date(0), limit: 500 };
  const eventsOf = async (app: TestApp) =>
    (await app.audit.search({ ...everything, to: new Date(Date.now() + 60_000) })).events;
  return {
    root,
    rootPort: listening.port,
    leaf,
    async clientOf(user, roles, marks = {}) {
      await root.services.users.create({ name: user, roles }, 'test').catch(() => undefined);
      const client = await openSshClient({
        ca: root.services.ca,
        user,
        roles,
        logins: ['root'],
        proxyPort: rootSsh.port,
        ...marks,
      });
      clients.push(client);
      const issued = await root.context.identity.issuer.issue({
        user,
        roles,
        publicKey: generateEd25519Key().publicKey,
        requestedTtlMs: undefined,
        addr: undefined,
      });
      const knownHosts = `${issued.host_signers.join('\n')}\n`;
      await writeFile(path.join(client.dir, 'known_hosts'), knownHosts);
      return client;
    },
    ssh: (client, target, command, options = []) =>
      client.run('ssh', ['-o', 'LogLevel=INFO', ...options, target, command]),
    leafEvents: () => eventsOf(leaf.app),
    rootEvents: () => eventsOf(root),
    async stop() {
      await Promise.all(clients.map((client) => client.remove()));
      await leafSsh.stop();
      await rootSsh.stop();
      await leaf.close();
      await root.close();
    },
  };
}
