import { kubeClusterResourceSchema } from '@postern/contracts';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { hostActor } from '../access-control/access/actor.js';
import { kubeServerName } from '../wings/kubernetes/kube-ca.js';
import { createSelfSigned } from '../tls/self-signed.js';
import { createTestApp, type TestApp } from './app-harness.testkit.js';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
} from './fake-kube/fake-kube-apiserver.testkit.js';
import {
  kubectlWith,
  type KubectlHarness,
  type RunningKubectl,
} from './fake-kube/kubectl.testkit.js';
import { createRole } from './roles.testkit.js';

export interface KubectlWorld {
  app: TestApp;
  /** FAKE: the test API server (no Kubernetes here): namespaces default, prod, kube-system. */
  fake: FakeKubeApiServer;
  /** The real kubectl for `user`, with a certificate from the cluster's Kubernetes CA. */
  /** kubectl as `user` with a certificate for `cluster` (prod unless said). */
  kubectlFor(user: string, accessRequests?: string[], cluster?: string): Promise<KubectlHarness>;
  stop(): Promise<void>;
}

/**
 * The real kubectl through a listening Postern to the fake API server, for the cluster `prod`:
 * pods web-1 (a shell, port 8080 an echo server) and db-1 in prod, app-1 in default; the role
 * web-team (pods web-* in prod, as alice@k8s in web-devs), one-stream (one Kubernetes connection
 * at a time); users alice and bob (web-team) and carl (web-team and one-stream).
 */
export async function startKubectlWorld(): Promise<KubectlWorld> {
  const echo: Server = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const fake = await startFakeKubeApiServer({ namespaces: ['default', 'prod', 'kube-system'] });
  fake.pods.add({
    name: 'web-1',
    namespace: 'prod',
    main: { command: ['sh'] },
    ports: { 8080: (echo.address() as AddressInfo).port },
  });
  fake.pods.add({ name: 'db-1', namespace: 'prod' });
  fake.pods.add({ name: 'app-1', namespace: 'default' });
  fake.pods.appendLog('prod', 'web-1', 'started on :8080\n');

  const app = await createTestApp({ https: await createSelfSigned(['proxy.test']) });
  await app.services.kubeClusters.create(
    kubeClusterResourceSchema.parse({
      kind: 'kube_cluster',
      metadata: { name: 'prod', labels: { env: 'prod' } },
      spec: { server: fake.url, ca_cert: fake.caPem, credentials: { token: fake.token } },
    }),
    hostActor('test'),
  );
  await createRole(app, 'web-team', {
    allow: {
      kubernetes_labels: { env: 'prod' },
      kubernetes_groups: ['web-devs'],
      kubernetes_users: ['alice@k8s'],
      kubernetes_resources: [{ kind: 'pod', namespace: 'prod', name: 'web-*', verbs: ['*'] }],
    },
  });
  await createRole(app, 'one-stream', { options: { max_kubernetes_connections: 1 } });
  await app.services.users.create({ name: 'alice', roles: ['web-team'] }, 'test');
  await app.services.users.create({ name: 'bob', roles: ['web-team'] }, 'test');
  await app.services.users.create({ name: 'carl', roles: ['web-team', 'one-stream'] }, 'test');
  const { port } = await app.listenOnLoopback();
  const ca = await app.services.kubeCa();
  const harnesses: KubectlHarness[] = [];
  const kubectlFor = async (user: string, accessRequests: string[] = [], cluster = 'prod') => {
    const issued = await ca.userCertificate(user, cluster, 3_600_000, { accessRequests });
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    const harness = await kubectlWith(
      {
        server: `https://127.0.0.1:${port}/kube/${cluster}`,
        'certificate-authority-data': base64(ca.certPem),
        'tls-server-name': kubeServerName,
      },
      {
        'client-certificate-data': base64(issued.certPem),
        'client-key-data': base64(issued.keyPem),
      },
    );
    harnesses.push(harness);
    return harness;
  };
  return {
    app,
    fake,
    kubectlFor,
    stop: async () => {
      for (const harness of harnesses) await harness.cleanup();
      await app.close();
      await fake.stop();
      await new Promise((resolve) => echo.close(resolve));
    },
  };
}

/** Types a line until its echo shows (a shell may not be reading yet when the first arrives). */
export async function typeAndSee(shell: RunningKubectl, line: string, seen: RegExp): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const from = shell.output().length;
    shell.write(`${line}\r`);
    try {
      await shell.waitFor(seen, line, from);
      return;
    } catch {
      // Not yet: type it again.
    }
  }
  throw new Error(`never saw ${seen} after typing ${line}:\n${shell.output()}`);
}
