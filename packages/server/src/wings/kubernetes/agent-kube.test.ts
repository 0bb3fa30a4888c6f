import { createJoinTokenRequestSchema } from '@postern/contracts';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { runAgent, type RunningAgent } from '../../agent/agent.js';
import { recordingLog } from '../../agent/tunnel-proxy.testkit.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
} from '../../testing/fake-kube/fake-kube-apiserver.testkit.js';
import { kubectlWith, type KubectlHarness } from '../../testing/fake-kube/kubectl.testkit.js';
import { createSelfSigned } from '../../tls/self-signed.js';
import { kubeServerName } from './kube-ca.js';

// A cluster only an agent's host reaches: `postern agent --kube inside --kubeconfig FILE` joins a
// real listening Postern, reports the cluster on its heartbeat, and kubectl's requests cross its
// tunnel; the agent adds the kubeconfig's token, the proxy decides who they run as. The API
// server is the fake (testing/fake-kube: FAKE).

let app: TestApp;
let fake: FakeKubeApiServer;
let agent: RunningAgent;
let dir: string;
let kubectl: KubectlHarness;

beforeAll(async () => {
  fake = await startFakeKubeApiServer();
  fake.pods.add({ name: 'web-1' });
  dir = await mkdtemp(path.join(tmpdir(), 'postern-agent-kube-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  await writeFile(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'inside',
          cluster: {
            server: fake.url,
            'certificate-authority-data': Buffer.from(fake.caPem).toString('base64'),
          },
        },
      ],
      users: [{ name: 'postern', user: { token: fake.token } }],
      contexts: [{ name: 'inside', context: { cluster: 'inside', user: 'postern' } }],
      'current-context': 'inside',
    }),
    { mode: 0o600 },
  );
  app = await createTestApp({ https: await createSelfSigned(['localhost']) });
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'inside' },
      spec: { allow: { kubernetes_labels: { site: 'inside' }, kubernetes_groups: ['ops'] } },
    }),
    hostActor('test'),
  );
  await app.services.users.create({ name: 'alice', roles: ['inside'] }, 'test');
  const { port } = await app.listenOnLoopback();
  const token = await app.services.joinTokens.create(
    createJoinTokenRequestSchema.parse({ roles: ['Kube'] }),
    hostActor('test'),
  );
  agent = await runAgent({
    proxy: `https://127.0.0.1:${port}`,
    token: token.token,
    labels: { site: 'inside' },
    dataDir: path.join(dir, 'agent'),
    insecure: true,
    kubeClusters: [{ name: 'inside', kubeconfig }],
    log: recordingLog(),
  });
  const ca = await app.services.kubeCa();
  const issued = await ca.userCertificate('alice', 'inside', 3_600_000);
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  kubectl = await kubectlWith(
    {
      server: `https://127.0.0.1:${port}/kube/inside`,
      'certificate-authority-data': base64(ca.certPem),
      'tls-server-name': kubeServerName,
    },
    { 'client-certificate-data': base64(issued.certPem), 'client-key-data': base64(issued.keyPem) },
  );
}, 60_000);

afterAll(async () => {
  await kubectl?.cleanup();
  await agent?.stop();
  await app?.close();
  await fake?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a Kubernetes cluster served by an agent', () => {
  it('is listed with the agent’s labels, online, as an agent record', async () => {
    await expect
      .poll(() =>
        app.services.kubeClusters.rows().find((row) => row.resource.metadata.name === 'inside'),
      )
      .toMatchObject({
        status: 'online',
        labels: { site: 'inside' },
        resource: { source: 'agent' },
      });
  });

  it("is reached through the tunnel: the agent adds the kubeconfig's credential, the proxy the identity", async () => {
    const pods = await kubectl.run(['get', 'pods']);
    expect(pods.code, pods.stderr).toBe(0);
    expect(pods.stdout).toContain('web-1');
    const seen = fake.requests.findLast(
      (request) => request.path === '/api/v1/namespaces/default/pods',
    );
    expect(seen).toMatchObject({ authorization: true, user: { via: 'token' } });
    expect(seen?.headers.impersonate).toEqual({
      'impersonate-user': ['alice'],
      'impersonate-group': ['ops'],
    });
  });

  it('carries exec through the tunnel too', async () => {
    const result = await kubectl.run(['exec', 'web-1', '--', 'sh', '-c', 'echo inside; exit 4']);
    expect(result).toMatchObject({ stdout: 'inside\n', code: 4 });
  });
});
