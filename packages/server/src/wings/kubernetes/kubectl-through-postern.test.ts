import { kubeClusterResourceSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import type { TestApp } from '../../testing/app-harness.testkit.js';
import type { FakeKubeApiServer } from '../../testing/fake-kube/fake-kube-apiserver.testkit.js';
import { kubectlVersion, type KubectlHarness } from '../../testing/fake-kube/kubectl.testkit.js';
import { createRole } from '../../testing/roles.testkit.js';
import { freePort } from '../../testing/sshd.testkit.js';
import {
  startKubectlWorld,
  typeAndSee,
  type KubectlWorld,
} from '../../testing/kubectl-world.testkit.js';

// The real kubectl through Postern to the fake API server (testing/fake-kube: FAKE, see
// docs/kubernetes.md): discovery, get, watch and logs with the roles' filters, exec and attach
// taken and opened again by the proxy (a live, recorded session with a terminal; relayed and
// audited without), port forwarding, locks, and what the API server is told about who asks.
// kubectl-policies.test.ts has the role options and access requests.

const version = await kubectlVersion();
const execTransports: { name: string; env: Record<string, string> }[] = [
  { name: version.execOverWebSocket ? 'over WebSocket' : 'over SPDY (kubectl default)', env: {} },
  { name: 'over SPDY', env: { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' } },
];

let world: KubectlWorld;
let app: TestApp;
let fake: FakeKubeApiServer;
let kubectl: KubectlHarness;
let kubectlOther: KubectlHarness;

beforeAll(async () => {
  world = await startKubectlWorld();
  ({ app, fake } = world);
  kubectl = await world.kubectlFor('alice');
  kubectlOther = await world.kubectlFor('bob');
});

afterAll(() => world?.stop());

const lastRequest = (suffix: string) => fake.requests.findLast((r) => r.path.endsWith(suffix));

describe('kubectl get, watch and logs', () => {
  it('lists the pods the roles reach, as the impersonated user and groups', async () => {
    const result = await kubectl.run(['get', 'pods', '-n', 'prod']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^NAME\s+READY\s+STATUS/);
    expect(result.stdout).toContain('web-1');
    expect(result.stdout).not.toContain('db-1');
    const seen = lastRequest('/namespaces/prod/pods')!;
    expect(seen.headers.impersonate).toEqual({
      'impersonate-user': ['alice@k8s'],
      'impersonate-group': ['web-devs'],
    });
  });

  it('prints the refusal for a namespace the roles do not reach, which the API server never sees', async () => {
    const before = fake.requests.length;
    const result = await kubectl.run(['get', 'pods', '-n', 'default']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Error from server (Forbidden)');
    expect(result.stderr).toContain('your roles do not allow list on pods in namespace "default"');
    expect(fake.requests.slice(before).some((r) => r.path.includes('/namespaces/default/'))).toBe(
      false,
    );
  });

  it('prints why for a cluster the roles do not reach, refused at discovery, before anything is forwarded', async () => {
    await createRole(app, 'other-clusters', { allow: { kubernetes_labels: { env: 'none' } } });
    await app.services.users.create({ name: 'zed', roles: ['other-clusters'] }, 'test');
    await vi.waitFor(() => expect(app.services.access.users.get('zed')).toBeDefined());
    const outsider = await world.kubectlFor('zed');
    const before = fake.requests.length;
    const result = await outsider.run(['get', 'pods', '-n', 'prod']);
    expect(result.code).not.toBe(0);
    // Not "Error from server (Forbidden): unknown": discovery's refusal is text kubectl prints.
    expect(result.stderr).toContain(
      'Error from server (Forbidden): your roles do not reach Kubernetes cluster prod',
    );
    expect(fake.requests.length).toBe(before);
  });

  it('says why when the API server cannot be reached', async () => {
    await app.services.kubeClusters.create(
      kubeClusterResourceSchema.parse({
        kind: 'kube_cluster',
        metadata: { name: 'gone', labels: { env: 'prod' } },
        spec: {
          // A loopback port nobody listens on.
          server: `https://127.0.0.1:${await freePort()}`,
          ca_cert: fake.caPem,
          credentials: { token: fake.token },
        },
      }),
      hostActor('test'),
    );
    const toGone = await world.kubectlFor('alice', [], 'gone');
    const result = await toGone.run(['get', 'pods', '-n', 'prod']);
    expect(result.code).not.toBe(0);
    // kubectl wraps a 502's text in its own words, but the reason is there.
    expect(result.stderr).toMatch(
      /Error from server \(InternalError\): an error on the server \("the Kubernetes API server could not be reached: connect ECONNREFUSED/,
    );
  });

  it('refuses to act as anyone the roles do not name (--as)', async () => {
    const result = await kubectl.run(['get', 'pods', '-n', 'prod', '--as', 'system:admin']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('acting as Kubernetes user "system:admin"');
  });

  it('watches: an added pod the roles reach appears, one they do not never does', async () => {
    const watch = kubectl.start(['get', 'pods', '-n', 'prod', '--watch', '--output-watch-events']);
    await watch.waitFor(/web-1/, 'the first listing');
    fake.pods.add({ name: 'db-2', namespace: 'prod' });
    fake.pods.add({ name: 'web-2', namespace: 'prod' });
    await watch.waitFor(/ADDED\s+web-2/, 'web-2 added');
    expect(watch.output()).not.toContain('db-2');
    watch.stop();
  });

  it('reads logs', async () => {
    const result = await kubectl.run(['logs', '-n', 'prod', 'web-1']);
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toContain('started on :8080');
  });
});

describe.each(execTransports)('kubectl exec $name', ({ env }) => {
  it('carries stdout, stderr and the exit code, and audits the command', async () => {
    const result = await kubectl.run(
      ['exec', '-n', 'prod', 'web-1', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3'],
      { env },
    );
    expect(result).toMatchObject({ stdout: 'out\n', code: 3 });
    expect(result.stderr).toContain('err\n');
    await expect
      .poll(async () => {
        const { events } = await app.audit.search({
          from: new Date(Date.now() - 60_000),
          to: new Date(Date.now() + 60_000),
          eventTypes: ['exec'],
          limit: 10,
        });
        return events.find((event) => event.exitCode === 3);
      })
      .toMatchObject({
        code: 'T3002E',
        user: 'alice',
        kubernetes_cluster: 'prod',
        kubernetes_pod_name: 'web-1',
        command: 'sh -c echo out; echo err >&2; exit 3',
      });
  });

  it('refuses a pod outside kubernetes_resources before the API server sees it', async () => {
    const before = fake.requests.length;
    const result = await kubectl.run(['exec', '-n', 'prod', 'db-1', '--', 'true'], { env });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/your roles do not allow (exec|get) on pods/);
    expect(fake.requests.slice(before).some((r) => r.path.includes('/pods/db-1/exec'))).toBe(false);
  });

  it('runs a shell on a terminal as a live, recorded session of kind k8s', async () => {
    const shell = kubectl.startInPty(['exec', '-it', '-n', 'prod', 'web-1', '--', 'sh'], {
      env,
      cols: 90,
      rows: 30,
    });
    await typeAndSee(shell, 'echo typed-$((6*7))', /typed-42/);
    const live = app.services.hub.list().find((tracker) => tracker.kind === 'k8s');
    expect(live).toMatchObject({
      owner: 'alice',
      login: 'alice@k8s',
      serverHostname: 'prod/prod/web-1',
      terminal: { w: 90, h: 30 },
    });
    shell.write('exit 5\r');
    expect(await shell.exited).toBe(5);
    await expect
      .poll(async () => {
        const { events } = await app.audit.search({
          from: new Date(Date.now() - 60_000),
          to: new Date(Date.now() + 60_000),
          eventTypes: ['session.end'],
          limit: 10,
        });
        return events.find((event) => event.sid === live!.id);
      })
      .toMatchObject({ proto: 'kube', kubernetes_cluster: 'prod', interactive: true });
  });
});

describe('kubectl attach', () => {
  it("joins the pod's main process through the proxy", async () => {
    const attached = kubectl.startInPty(['attach', '-it', '-n', 'prod', 'web-1'], {
      cols: 80,
      rows: 24,
    });
    await attached.waitFor(/If you don't see a command prompt/, 'the attach banner');
    attached.write('\r');
    await typeAndSee(attached, 'echo attached-$((2+3))', /attached-5/);
    attached.stop();
  });
});

describe('kubectl port-forward', () => {
  it.each([
    ['the WebSocket tunnel', { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'true' }],
    ['SPDY', { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }],
  ])('relays a connection over %s', async (_name, env) => {
    const forward = kubectl.start(['port-forward', '-n', 'prod', 'pod/web-1', ':8080'], { env });
    const match = await forward.waitFor(/Forwarding from 127\.0\.0\.1:(\d+) -> 8080/, 'the port');
    const reply = await roundTrip(Number(match[1]), 'through postern\n');
    expect(reply).toBe('through postern\n');
    forward.stop();
  });
});

describe('locks', () => {
  it('end an open exec session and refuse the next request', async () => {
    const shell = kubectlOther.startInPty(['exec', '-it', '-n', 'prod', 'web-1', '--', 'sh'], {
      cols: 80,
      rows: 24,
    });
    await typeAndSee(shell, 'echo before-$((1+1))', /before-2/);
    await app.services.locks.create(
      { targets: { user: 'bob' }, message: 'incident 7' },
      hostActor('test'),
    );
    const code = await shell.exited;
    expect(code).not.toBe(0);
    expect(shell.output()).toContain('locked: incident 7');
    const after = await kubectlOther.run(['get', 'pods', '-n', 'prod']);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toContain('locked: incident 7');
  });
});

describe('a role change', () => {
  it('ends an open exec session with the reason, which kubectl prints', async () => {
    await app.services.users.create({ name: 'cora', roles: ['web-team'] }, 'test');
    await vi.waitFor(() => expect(app.services.access.users.get('cora')).toBeDefined());
    const kubectlCora = await world.kubectlFor('cora');
    const shell = kubectlCora.startInPty(['exec', '-it', '-n', 'prod', 'web-1', '--', 'sh'], {
      cols: 80,
      rows: 24,
    });
    await typeAndSee(shell, 'echo before-$((2+2))', /before-4/);
    await app.services.users.update({ name: 'cora', roles: [] }, 'test');
    expect(await shell.exited).not.toBe(0);
    expect(shell.output()).toMatch(/your roles/);
    expect(shell.output()).not.toContain('unexpected EOF');
  });
});

function roundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    import('node:net').then(({ connect }) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(text));
      let got = '';
      socket.on('data', (chunk: Buffer) => {
        got += chunk.toString();
        if (got.length >= text.length) {
          socket.end();
          resolve(got);
        }
      });
      socket.on('error', reject);
    }, reject);
  });
}
