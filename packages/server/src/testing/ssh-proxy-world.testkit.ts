import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { vi } from 'vitest';
import { hostActor } from '../access-control/access/actor.js';
import type { AuditEvent } from '../modules/audit/index.js';
import { startLocalNode } from '../wings/servers/local-node.js';
import { createTestApp, type TestApp } from './app-harness.testkit.js';
import { openSshClient, type OpenSshClientSetup } from './openssh-client.testkit.js';
import { startTestSshProxy } from './ssh-proxy.testkit.js';
import { startSshd } from './sshd.testkit.js';

/**
 * The stock OpenSSH client's world for the SSH proxy's tests: a test app whose inventory holds a
 * real sshd (`sshd-host`, env=test) and the built-in node, the SSH proxy listening, the roles
 * `root-access` (root on env=test), `agent-forwarding` and `no-forwarding`, the users alice
 * (root-access), carol (and agent-forwarding) and dave (and no-forwarding), and alice's ssh
 * client set up to go through the proxy.
 */
export interface SshProxyWorld {
  app: TestApp;
  sshd: Awaited<ReturnType<typeof startSshd>>;
  local: Awaited<ReturnType<typeof startLocalNode>>;
  proxy: Awaited<ReturnType<typeof startTestSshProxy>>;
  alice: OpenSshClientSetup;
  /** A scratch directory, removed by stop. */
  dir: string;
  /** Every audit event so far. */
  events(): Promise<AuditEvent[]>;
  stop(): Promise<void>;
}

export async function startSshProxyWorld(): Promise<SshProxyWorld> {
  const admin = hostActor('test');
  const app = await createTestApp();
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-ssh-proxy-'));
  const sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  await app.services.inventory.addOpenSsh(
    { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'test' } },
    admin,
  );
  const local = await startLocalNode({
    config: {
      enabled: true,
      listenAddr: { host: '127.0.0.1', port: 0 },
      labels: { env: 'test' },
      commands: [],
    },
    dataDir: dir,
    ca: app.services.ca,
    inventory: app.services.inventory,
    locks: app.services.lockWatcher,
    log: () => undefined,
  });
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'root-access' },
      spec: { allow: { node_labels: { env: 'test' }, logins: ['root'] } },
    }),
    admin,
  );
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'agent-forwarding' },
      spec: { options: { forward_agent: true }, allow: {} },
    }),
    admin,
  );
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'no-forwarding' },
      spec: { options: { port_forwarding: false }, allow: {} },
    }),
    admin,
  );
  // The proxy takes certificates of users who have a record (a deleted user's are refused).
  await app.services.users.create({ name: 'alice', roles: ['root-access'] }, 'test');
  await app.services.users.create(
    { name: 'carol', roles: ['root-access', 'agent-forwarding'] },
    'test',
  );
  await app.services.users.create(
    { name: 'dave', roles: ['root-access', 'no-forwarding'] },
    'test',
  );
  const proxy = await startTestSshProxy(app);
  const alice = await openSshClient({
    ca: app.services.ca,
    user: 'alice',
    roles: ['root-access'],
    logins: ['root'],
    proxyPort: proxy.port,
  });
  return {
    app,
    sshd,
    local,
    proxy,
    alice,
    dir,
    events: async () =>
      (
        await app.audit.search({
          from: new Date(0),
          to: new Date(Date.now() + 60_000),
          limit: 5000,
        })
      ).events,
    async stop() {
      await alice.remove();
      await proxy.stop();
      await local.stop();
      await sshd.stop();
      await app.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Both kinds of node, for `it.each`: OpenSSH by its name, the built-in node by its id (read when
 * the test runs, after the world started).
 */
export const bothNodes = (world: () => SshProxyWorld): [string, () => string][] => [
  ['an OpenSSH host', () => 'sshd-host'],
  ['the built-in node', () => world().local.id],
];

/** The user's ssh client for `user` with `roles`, through the world's proxy, as root. */
export function sshClientFor(world: SshProxyWorld, user: string, roles: string[]) {
  return openSshClient({
    ca: world.app.services.ca,
    user,
    roles,
    logins: ['root'],
    proxyPort: world.proxy.port,
  });
}

/** An HTTP server on loopback answering every request with `body`. */
export async function listenHttp(body: string): Promise<{ server: HttpServer; port: number }> {
  const server = createHttpServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** A real ssh-agent holding one fresh key. */
export async function startSshAgent(parent: string) {
  const socket = path.join(parent, `agent-${Date.now()}.sock`);
  const child = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
  await vi.waitFor(() => stat(socket), { timeout: 15_000, interval: 50 });
  const key = path.join(parent, `agent-key-${Date.now()}`);
  const run = (file: string, args: string[]) =>
    new Promise<string>((resolve, reject) =>
      execFile(file, args, { env: { ...process.env, SSH_AUTH_SOCK: socket } }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  await run('ssh-add', ['-q', key]);
  const fingerprint = (await run('ssh-keygen', ['-l', '-f', `${key}.pub`])).split(' ')[1]!;
  return { socket, fingerprint, stop: () => child.kill() };
}

/** A random port in 20000–39999 for a forward's listening side (the client or node binds it). */
export const randomForwardPort = () => 20_000 + Math.floor(Math.random() * 20_000);

/** `attempt` until it resolves, for up to `ms` (a forward needs a moment to listen). */
export async function retry<T>(attempt: () => Promise<T>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > end) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
