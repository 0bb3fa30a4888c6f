import { kubeClusterResourceSchema } from '@postern/contracts';
import type { AddressInfo } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../agent/tunnel-proxy.testkit.js';
import { hostActor } from '../../access-control/access/actor.js';
import {
  startRootAndLeafTunnels,
  type RootAndLeafTunnels,
} from '../../modules/trusted-clusters/leaf-tunnels.testkit.js';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
} from '../../testing/fake-kube/fake-kube-apiserver.testkit.js';
import { kubectlWith, type KubectlHarness } from '../../testing/fake-kube/kubectl.testkit.js';
import { createRole } from '../../testing/roles.testkit.js';
import { fetchKubeCertificate, fetchKubeClusters, kubeClusterName } from './cli/kube-client.js';
import { kubeServerName } from './kube-ca.js';

/**
 * The real kubectl on the root's side, through the root's Kubernetes listener and the leaf's
 * tunnel to the leaf's cluster `prod` (the FAKE test API server: no Kubernetes runs here), named
 * `prod.leaf` on the root. The leaf's role map and roles decide, the leaf audits and records;
 * the root audits each request and refuses on its own locks.
 */
let world: RootAndLeafTunnels;
let fake: FakeKubeApiServer;
let kubePort: number;
const harnesses: KubectlHarness[] = [];

beforeAll(async () => {
  fake = await startFakeKubeApiServer({ namespaces: ['default', 'prod'] });
  fake.pods.add({ name: 'web-1', namespace: 'prod', main: { command: ['sh'] } });
  fake.pods.add({ name: 'db-1', namespace: 'prod' });
  world = await startRootAndLeafTunnels('leaf-kube');
  await world.leaf.services.kubeClusters.create(
    kubeClusterResourceSchema.parse({
      kind: 'kube_cluster',
      metadata: { name: 'prod', labels: { env: 'prod' } },
      spec: { server: fake.url, ca_cert: fake.caPem, credentials: { token: fake.token } },
    }),
    hostActor('test'),
  );
  await createRole(world.leaf, 'leaf-kube', {
    allow: {
      kubernetes_labels: { env: 'prod' },
      kubernetes_groups: ['web-devs'],
      kubernetes_users: ['alice@k8s'],
      kubernetes_resources: [{ kind: 'pod', namespace: 'prod', name: 'web-*', verbs: ['*'] }],
    },
  });
  const { server } = await world.root.services.kubeServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  kubePort = (server.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  for (const harness of harnesses) await harness.cleanup();
  await world?.stop();
  await fake?.stop();
});

/** kubectl with a certificate `postern kube login prod --cluster leaf` got from the root. */
async function kubectlFor(user: string, roles: string[], code?: string): Promise<KubectlHarness> {
  const env = await world.envOf(user, roles);
  const name = await kubeClusterName(env, 'prod', 'leaf');
  const { answer } = await fetchKubeCertificate(env, name, code);
  if (!answer.cert || !answer.key) throw new Error(`no certificate for ${user}`);
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  const harness = await kubectlWith(
    {
      server: `https://127.0.0.1:${kubePort}/kube/${name}`,
      'certificate-authority-data': base64(answer.ca),
      'tls-server-name': kubeServerName,
    },
    { 'client-certificate-data': base64(answer.cert), 'client-key-data': base64(answer.key) },
  );
  harnesses.push(harness);
  return harness;
}

describe("kubectl to a leaf's cluster through the root", () => {
  it('kube ls --cluster lists the leaf’s clusters; kube login names them <cluster>.<leaf>', async () => {
    const env = await world.envOf('alice', ['access']);
    expect((await fetchKubeClusters(env, 'leaf')).map((cluster) => cluster.name)).toEqual(['prod']);
    expect(await kubeClusterName(env, 'prod', 'leaf')).toBe('prod.leaf');
    const { answer } = await fetchKubeCertificate(env, 'prod.leaf');
    expect(answer.server).toMatch(/\/kube\/prod\.leaf$/);
    expect(new X509Certificate(answer.cert!).subjectAltName).toContain('prod.leaf');
    await expect(fetchKubeCertificate(env, 'nope.leaf')).rejects.toThrow(
      'no Kubernetes cluster named nope on leaf',
    );
    const eve = await world.envOf('eve', ['auditor']);
    await expect(fetchKubeCertificate(eve, 'prod.leaf')).rejects.toThrow(
      "none of eve's roles on root (auditor) map to a role on leaf",
    );
  });

  it('lists pods as the leaf’s roles allow, audited on both clusters', async () => {
    const kubectl = await kubectlFor('alice', ['access']);
    const result = await kubectl.run(['get', 'pods', '-n', 'prod', '-o', 'name']);
    expect(result).toMatchObject({ code: 0, stdout: 'pod/web-1\n' });
    const seen = fake.requests.findLast(
      (request) => request.path === '/api/v1/namespaces/prod/pods',
    );
    expect(seen?.headers.impersonate['impersonate-user']).toEqual(['alice@k8s']);
    const kubeRequest = (cluster: string) => async () =>
      (await world.eventsOf(cluster === 'prod' ? world.leaf : world.root)).some(
        (e) => e.code === 'T3009I' && e.user === 'alice' && e.kubernetes_cluster === cluster,
      );
    await eventually(kubeRequest('prod'), 10_000, "the leaf's kube.request");
    await eventually(kubeRequest('prod.leaf'), 10_000, "the root's kube.request");
  });

  it('runs exec in a pod through both clusters, and the leaf refuses one its roles do not reach', async () => {
    const kubectl = await kubectlFor('alice', ['access']);
    const result = await kubectl.run([
      'exec',
      '-n',
      'prod',
      'web-1',
      '--',
      'sh',
      '-c',
      'echo hi; exit 4',
    ]);
    expect(result).toMatchObject({ stdout: 'hi\n', code: 4 });
    const refused = await kubectl.run(['exec', '-n', 'prod', 'db-1', '--', 'true']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/db-1/);
  });

  it('one leaf session serves all of a user’s certificates for the leaf’s cluster', async () => {
    await world.root.services.users.create({ name: 'kim', roles: ['access'] }, 'test');
    const first = await kubectlFor('kim', ['access']);
    expect((await first.run(['get', 'pods', '-n', 'prod', '-o', 'name'])).code).toBe(0);
    // A second `kube login`, later: its certificate is another, its user the same.
    world.root.clock.advance(2_000);
    const second = await kubectlFor('kim', ['access']);
    expect((await second.run(['get', 'pods', '-n', 'prod', '-o', 'name'])).code).toBe(0);
    const leafSignIns = (await world.eventsOf(world.leaf)).filter(
      (e) => e.code === 'T1001I' && e.user === 'kim',
    );
    expect(leafSignIns).toHaveLength(1);
  });

  it('a lock on the root refuses its user at once', async () => {
    const kubectl = await kubectlFor('larry', ['access']);
    expect((await kubectl.run(['get', 'pods', '-n', 'prod', '-o', 'name'])).code).toBe(0);
    await world.root.services.locks.create(
      { targets: { user: 'larry' }, message: 'root says no' },
      hostActor('test'),
    );
    await eventually(
      async () => /root says no/.test((await kubectl.run(['get', 'pods', '-n', 'prod'])).stderr),
      10_000,
      'the refusal',
    );
  });

  it('per-session MFA the leaf asks for: a certificate got with a code opens it, one without does not', async () => {
    const env = await world.envOf('mia', ['checked-access']);
    const { answer } = await fetchKubeCertificate(env, 'prod.leaf');
    expect(answer).toMatchObject({ session_mfa_required: true });
    expect(answer.cert).toBeUndefined();
    const kubectl = await kubectlFor('mia', ['checked-access'], world.miaCode());
    const result = await kubectl.run(['get', 'pods', '-n', 'prod', '-o', 'name']);
    expect(result).toMatchObject({ code: 0, stdout: 'pod/web-1\n' });
    // A certificate of the root's Kubernetes CA that did not pass the check: the leaf refuses.
    const ca = await world.root.services.kubeCa();
    const unchecked = await ca.userCertificate('mia', 'prod.leaf', 600_000, { accessRequests: [] });
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    const plain = await kubectlWith(
      {
        server: `https://127.0.0.1:${kubePort}/kube/prod.leaf`,
        'certificate-authority-data': base64(ca.certPem),
        'tls-server-name': kubeServerName,
      },
      {
        'client-certificate-data': base64(unchecked.certPem),
        'client-key-data': base64(unchecked.keyPem),
      },
    );
    harnesses.push(plain);
    const refused = await plain.run(['get', 'pods', '-n', 'prod', '-o', 'name']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(
      /require an MFA check for each session.*postern kube login prod --cluster leaf again/,
    );
  });
});
