import { rm } from 'node:fs/promises';
import { hostActor } from '../../access-control/access/actor.js';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { listenThroughProxy, type TunnelListener } from '../../cli/login/tunnel-listener.js';
import type { AskCode } from '../../cli/login/session-mfa.js';
import { tunnelTarget, type TunnelResource } from '../../cli/login/tunnel-target.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { signedInHome } from '../../testing/cli-home.testkit.js';
import { signedHeaders } from '../../testing/signed-request.testkit.js';
import { upgradeStatus } from '../../testing/ws-upgrade.testkit.js';
import { inviteUser, nextTotp } from '../../testing/identity.testkit.js';
import { createRole, createSessionMfaRole } from '../../testing/roles.testkit.js';
import type { AuditEvent } from '../audit/index.js';
import { connectLeaf } from './trusted-clusters.testkit.js';

/**
 * A root and a leaf that trusts it, the root listening on loopback, for the CLI's tunnels to a
 * leaf's resources through the root (`postern proxy db|app --cluster leaf`). The leaf maps the
 * root's `access` role to its own `leafRole`, which the test creates with what it allows, and
 * `checked-access` to that and `leaf-checked` (require_session_mfa). Root users: alice and larry
 * (`access`), eve (`auditor`, mapped to nothing), mia (`checked-access`, with an authenticator).
 */
export interface RootAndLeafTunnels {
  root: TestApp;
  rootPort: number;
  leaf: TestApp;
  /** A `postern login` on the root as `user`: the environment the CLI's functions take. */
  envOf(user: string, roles: string[]): Promise<NodeJS.ProcessEnv>;
  /** `postern proxy db|app NAME --cluster leaf` as `user`: its port, and the lines it logs. */
  proxyOnLeaf(
    user: string,
    roles: string[],
    resource: Omit<TunnelResource, 'cluster'>,
    askCode?: AskCode,
  ): Promise<{ port: number; logged: string[] }>;
  /** mia's next authenticator code on the root (both clusters' clocks move a step). */
  miaCode(): string;
  /** The signature headers of the CLI's upgrade to `path` on the root, as alice. */
  signedUpgrade(path: string): Promise<Record<string, string>>;
  eventsOf(app: TestApp): Promise<AuditEvent[]>;
  stop(): Promise<void>;
}

export async function startRootAndLeafTunnels(
  leafRole: string,
  options: { leafPublicAddr?: string } = {},
): Promise<RootAndLeafTunnels> {
  const root = await createTestApp({ clusterName: 'root' });
  const rootPort = (await root.listenOnLoopback()).port;
  const leaf = await createTestApp({ clusterName: 'leaf', publicAddr: options.leafPublicAddr });
  await connectLeaf(
    root,
    `http://127.0.0.1:${rootPort}`,
    leaf,
    `[{remote: access, local: [${leafRole}]}, {remote: checked-access, local: [${leafRole}, leaf-checked]}]`,
  );
  await createSessionMfaRole(leaf, 'leaf-checked');
  await createRole(root, 'checked-access', {});
  await eventually(
    () => root.services.tunnels.serves({ kind: 'cluster', name: 'leaf' }),
    20_000,
    'the tunnel',
  );
  for (const [user, role] of [
    ['alice', 'access'],
    ['larry', 'access'],
    ['eve', 'auditor'],
  ]) {
    await root.services.users.create({ name: user!, roles: [role!] }, 'test');
  }
  const mia = await inviteUser(root, 'mia', { roles: ['checked-access'] });
  const homes: string[] = [];
  const listeners: TunnelListener[] = [];
  const homeOf = async (user: string, roles: string[]) => {
    const signedIn = await signedInHome(root, rootPort, user, roles);
    homes.push(signedIn.home);
    return signedIn;
  };
  const envOf = async (user: string, roles: string[]) => ({
    POSTERN_HOME: (await homeOf(user, roles)).home,
  });
  return {
    root,
    rootPort,
    leaf,
    envOf,
    async proxyOnLeaf(user, roles, resource, askCode) {
      const env = await envOf(user, roles);
      const noCode = () => Promise.reject(new Error('no code expected'));
      const target = await tunnelTarget(env, { ...resource, cluster: 'leaf' }, askCode ?? noCode);
      const logged: string[] = [];
      const listener = await listenThroughProxy(env, target, 0, (line) => logged.push(line));
      listeners.push(listener);
      return { port: listener.port, logged };
    },
    miaCode() {
      leaf.clock.advance(30_000);
      return nextTotp(root, mia.totpSecret!);
    },
    async signedUpgrade(path) {
      return signedHeaders(root, 'alice', { path });
    },
    async eventsOf(app) {
      const to = new Date(Date.now() + 60_000);
      return (await app.audit.search({ from: new Date(0), to, limit: 1000 })).events;
    },
    async stop() {
      await Promise.all(listeners.map((listener) => listener.close()));
      await Promise.all(homes.map((home) => rm(home, { recursive: true, force: true })));
      await leaf.close();
      await root.close();
    },
  };
}

/** A WebSocket upgrade to the root's `path`: opened, or refused with its status and body. */
export function upgradeAnswer(port: number, path: string, headers: Record<string, string>) {
  return upgradeStatus(`ws://127.0.0.1:${port}${path}`, headers);
}

/**
 * Waits until both sides audited `user`'s session to the leaf's database `name`: the leaf a
 * statement matching `query` (its engine's event), the root the hop to it.
 */
export async function leafDatabaseSessionAudited(
  world: RootAndLeafTunnels,
  { user, name, query }: { user: string; name: string; query: RegExp },
): Promise<void> {
  await eventually(
    async () =>
      (await world.eventsOf(world.leaf)).some(
        (e) => e.code === 'TDB02I' && e.user === user && query.test(String(e.query)),
      ),
    10_000,
    "the leaf's statement event",
  );
  await eventually(
    async () =>
      (await world.eventsOf(world.root)).some(
        (e) =>
          e.code === 'TPOS062I' &&
          e.user === user &&
          e.kind === 'database' &&
          e.cluster === 'leaf' &&
          e.name === name,
      ),
    10_000,
    "the root's hop event",
  );
}

/**
 * Locks `user` on the root ("root says no") and waits for `ended`, what shows their session to a
 * leaf ended: how long that took, in ms.
 */
export async function msToEndOnRootLock(
  world: RootAndLeafTunnels,
  user: string,
  ended: () => Promise<unknown>,
): Promise<number> {
  const lockedAt = Date.now();
  await world.root.services.locks.create(
    { targets: { user }, message: 'root says no' },
    hostActor('test'),
  );
  await ended();
  return Date.now() - lockedAt;
}
