import { hostActor } from '../access-control/access/actor.js';
import { createTestApp, type TestApp, type TestAppOptions } from './app-harness.testkit.js';
import { startSshd } from './sshd.testkit.js';

export interface SshNodeApp {
  app: TestApp;
  sshd: Awaited<ReturnType<typeof startSshd>>;
  /** http://127.0.0.1:<port> of the listening app. */
  baseUrl: string;
  /** The node `sshd-host` (labels env=test), a real OpenSSH sshd trusting the cluster's CA. */
  nodeId: string;
  close(): Promise<void>;
}

/** A listening app with one real sshd registered as a node: what terminal tests start from. */
export async function startSshNodeApp(options: TestAppOptions = {}): Promise<SshNodeApp> {
  const app = await createTestApp(options);
  await app.server.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // As `postern start` does once it listens: where the other proxies reach this one.
  app.context.hub.advertise(baseUrl);
  const sshd = await startSshd({ trustedUserCaKeys: app.services.ca.trustedUserCaKeysLine() });
  const node = await app.services.inventory.addOpenSsh(
    { name: 'sshd-host', addr: `127.0.0.1:${sshd.port}`, labels: { env: 'test' } },
    hostActor('test'),
  );
  return {
    app,
    sshd,
    baseUrl,
    nodeId: node.metadata.name,
    close: async () => {
      await sshd.stop();
      await app.close();
    },
  };
}
