import type { TerminalRequest } from '@postern/contracts';
import { hostActor } from '../access-control/access/actor.js';
import { createTestApp, type TestApp, type TestAppOptions } from './app-harness.testkit.js';
import { startSshd } from './sshd.testkit.js';
import { openTerminal, type TerminalClient } from './terminal-client.testkit.js';

/** What most terminal tests start from: a listening app, a real sshd as a node, a root role. */
export interface TerminalFixture {
  app: TestApp;
  sshd: Awaited<ReturnType<typeof startSshd>>;
  baseUrl: string;
  /** The sshd's node: its id, and the name it was added under. */
  nodeId: string;
  nodeName: string;
  /** A role allowing `root` on every server. */
  role: string;
  /** A terminal as the browser opens one, as `root` on the node unless `params` say otherwise. */
  open(headers: Record<string, string>, params?: Partial<TerminalRequest>): Promise<TerminalClient>;
  close(): Promise<void>;
}

export async function startTerminalFixture(
  options: TestAppOptions & { nodeName?: string } = {},
): Promise<TerminalFixture> {
  const { nodeName = 'test-host', ...appOptions } = options;
  const app = await createTestApp(appOptions);
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  const admin = hostActor('test');
  const node = await app.services.inventory.addOpenSsh(
    { name: nodeName, addr: `127.0.0.1:${sshd.port}`, labels: {} },
    admin,
  );
  const role = 'root-access';
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: role },
      spec: { allow: { node_labels: { '*': '*' }, logins: ['root'] } },
    }),
    admin,
  );
  const nodeId = node.metadata.name;
  return {
    app,
    sshd,
    baseUrl,
    nodeId,
    nodeName,
    role,
    open: (headers, params = {}) =>
      openTerminal({
        baseUrl,
        headers,
        params: { server_id: nodeId, login: 'root', term: { w: 80, h: 24 }, ...params } as never,
      }),
    async close() {
      await sshd.stop();
      await app.close();
    },
  };
}
