import { kubeClusterResourceSchema } from '@postern/contracts';
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
} from '../../testing/fake-kube/fake-kube-apiserver.testkit.js';
import {
  kubectlVersion,
  kubectlWith,
  type KubectlHarness,
  type RunningKubectl,
} from '../../testing/fake-kube/kubectl.testkit.js';
import { createSelfSigned } from '../../tls/self-signed.js';
import { kubeServerName } from './kube-ca.js';
import { createSessionMfaRole } from '../../testing/roles.testkit.js';

// The real kubectl through Postern to the fake API server (testing/fake-kube: FAKE, see
// docs/kubernetes.md): discovery, get, watch and logs with the roles' filters, exec and attach
// taken and opened again by the proxy (a live, recorded session with a terminal; relayed and
// audited without), port forwarding, and what the API server is told about who asks.

const version = await kubectlVersion();
const execTransports: { name: string; env: Record<string, string> }[] = [
  { name: version.execOverWebSocket ? 'over WebSocket' : 'over SPDY (kubectl default)', env: {} },
  { name: 'over SPDY', env: { KUBECTL_REMOTE_COMMAND_WEBSOCKETS: 'false' } },
];

let fake: FakeKubeApiServer;
let app: TestApp;
let kubectl: KubectlHarness;
let kubectlOther: KubectlHarness;
let kubectlLimited: KubectlHarness;
let harnessFor: (user: string, accessRequests?: string[]) => Promise<KubectlHarness>;
let echo: Server;

beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  fake = await startFakeKubeApiServer({ namespaces: ['default', 'prod', 'kube-system'] });
  fake.pods.add({
    name: 'web-1',
    namespace: 'prod',
    main: { command: ['sh'] },
    ports: { 8080: (echo.address() as AddressInfo).port },
  });
  fake.pods.add({ name: 'db-1', namespace: 'prod' });
  fake.pods.add({ name: 'app-1', namespace: 'default' });
  fake.pods.appendLog('prod', 'web-1', 'started on :8080\n');

  app = await createTestApp({ https: await createSelfSigned(['proxy.test']) });
  await app.services.kubeClusters.create(
    kubeClusterResourceSchema.parse({
      kind: 'kube_cluster',
      metadata: { name: 'prod', labels: { env: 'prod' } },
      spec: { server: fake.url, ca_cert: fake.caPem, credentials: { token: fake.token } },
    }),
    hostActor('test'),
  );
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'web-team' },
      spec: {
        allow: {
          kubernetes_labels: { env: 'prod' },
          kubernetes_groups: ['web-devs'],
          kubernetes_users: ['alice@k8s'],
          kubernetes_resources: [{ kind: 'pod', namespace: 'prod', name: 'web-*', verbs: ['*'] }],
        },
      },
    }),
    hostActor('test'),
  );
  await app.services.users.create({ name: 'alice', roles: ['web-team'] }, 'test');
  await app.services.users.create({ name: 'bob', roles: ['web-team'] }, 'test');
  await app.services.roles.create(
    JSON.stringify({
      kind: 'role',
      version: 'v7',
      metadata: { name: 'one-stream' },
      spec: { options: { max_kubernetes_connections: 1 } },
    }),
    hostActor('test'),
  );
  await app.services.users.create({ name: 'carl', roles: ['web-team', 'one-stream'] }, 'test');
  const { port } = await app.listenOnLoopback();
  const ca = await app.services.kubeCa();
  const harness = async (user: string, accessRequests: string[] = []) => {
    const issued = await ca.userCertificate(user, 'prod', 3_600_000, { accessRequests });
    const base64 = (text: string) => Buffer.from(text).toString('base64');
    return kubectlWith(
      {
        server: `https://127.0.0.1:${port}/kube/prod`,
        'certificate-authority-data': base64(ca.certPem),
        'tls-server-name': kubeServerName,
      },
      {
        'client-certificate-data': base64(issued.certPem),
        'client-key-data': base64(issued.keyPem),
      },
    );
  };
  kubectl = await harness('alice');
  kubectlOther = await harness('bob');
  kubectlLimited = await harness('carl');
  harnessFor = harness;
});

afterAll(async () => {
  await kubectl?.cleanup();
  await kubectlOther?.cleanup();
  await kubectlLimited?.cleanup();
  await app?.close();
  await fake?.stop();
  await new Promise((resolve) => echo?.close(resolve));
});

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

describe('an access request assumed by postern kube login', () => {
  it("gives the certificate the request's roles while it is approved, and none once deleted", async () => {
    const admin = hostActor('test');
    const role = (name: string, allow: object) =>
      app.services.roles.create(
        JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
        admin,
      );
    await role('asks-web', { request: { roles: ['web-team'] } });
    await role('reviews-web', { review_requests: { roles: ['web-team'] } });
    await app.services.users.create({ name: 'dora', roles: ['asks-web'] }, 'test');
    const dora = { name: 'dora', roleSet: app.services.access.resolve('dora', []).roleSet };
    const reviewer = {
      name: 'rex',
      roleSet: app.services.access.roleSetFor('rex', ['reviews-web']),
    };
    const requests = app.services.accessRequests;
    const request = await requests.create(
      {
        roles: ['web-team'],
        resources: [],
        reason: 'debug',
        suggestedReviewers: [],
        dryRun: false,
      },
      dora,
    );
    const without = await harnessFor('dora');
    const assumed = await harnessFor('dora', [request.id]);
    try {
      // Pending: the request adds nothing yet.
      expect((await assumed.run(['get', 'pods', '-n', 'prod'])).code).not.toBe(0);
      await requests.review(request.id, { state: 'APPROVED', reason: '' }, reviewer);
      await expect
        .poll(async () => (await assumed.run(['get', 'pods', '-n', 'prod'])).stdout)
        .toContain('web-1');
      expect((await without.run(['get', 'pods', '-n', 'prod'])).code).not.toBe(0);
      await requests.remove(request.id, dora);
      await expect
        .poll(async () => (await assumed.run(['get', 'pods', '-n', 'prod'])).code)
        .not.toBe(0);
    } finally {
      await without.cleanup();
      await assumed.cleanup();
    }
  });
});

describe('require_session_mfa', () => {
  it('refuses kubectl, which cannot ask for the check, before the API server sees a request', async () => {
    await createSessionMfaRole(app, 'kube-checked');
    await app.services.users.create({ name: 'mona', roles: ['web-team', 'kube-checked'] }, 'test');
    const mona = await harnessFor('mona');
    const seen = fake.requests.length;
    try {
      // --raw: no discovery first, so kubectl prints the refusal's own message.
      const result = await mona.run(['get', '--raw', '/kube/prod/api/v1/namespaces/prod/pods']);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        'require an MFA check for each session (require_session_mfa)',
      );
      expect(fake.requests.slice(seen).some((r) => r.path.includes('/pods'))).toBe(false);
    } finally {
      await mona.cleanup();
    }
  });
});

describe('a moderated kubectl exec (require_session_join kinds: [k8s])', () => {
  beforeAll(async () => {
    const allow = {
      require_session_join: [
        {
          name: 'kube oversight',
          filter: 'contains(user.roles, "kube-mod")',
          kinds: ['k8s'],
          count: 1,
          modes: ['moderator'],
        },
      ],
    };
    await app.services.roles.create(
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name: 'watched-web' },
        spec: { allow },
      }),
      hostActor('test'),
    );
    await app.services.users.create({ name: 'eve', roles: ['web-team', 'watched-web'] }, 'test');
  });

  it('refuses what a moderator could not watch: exec without a terminal, kubectl cp, port-forward', async () => {
    const eve = await harnessFor('eve');
    try {
      const needs =
        'your Kubernetes sessions need 1 moderator matching contains(user.roles, "kube-mod")';
      const command = await eve.run(['exec', '-n', 'prod', 'web-1', '--', 'echo', 'unwatched']);
      expect(command.code).not.toBe(0);
      expect(command.stdout).not.toContain('unwatched');
      expect(command.stderr).toContain(`a command without a terminal is not allowed: ${needs}`);
      const copy = await eve.run(['cp', 'prod/web-1:/etc/hostname', '/dev/null']);
      expect(copy.code).not.toBe(0);
      const forward = await eve.run(['port-forward', '-n', 'prod', 'pod/web-1', ':8080']);
      expect(forward.code).not.toBe(0);
      expect(forward.stderr).toContain(`port forwarding is not allowed: ${needs}`);
    } finally {
      await eve.cleanup();
    }
  });

  it('waits for the moderator before the shell runs, and ends when they leave', async () => {
    const eve = await harnessFor('eve');
    try {
      const before = new Set(app.services.hub.list().map((t) => t.id));
      const shell = eve.startInPty(['exec', '-it', '-n', 'prod', 'web-1', '--', 'sh'], {
        cols: 80,
        rows: 24,
      });
      await shell.waitFor(/this session needs 1 moderator matching/, 'the waiting notice');
      shell.write('echo early-$((2*3))\r');
      const sid = app.services.hub.list().find((t) => !before.has(t.id) && t.owner === 'eve')!.id;
      expect(app.services.hub.tracker(sid)).toMatchObject({ kind: 'k8s', moderated: true });
      // A moderator's party (as the console's or `postern join`'s would be), on the live session.
      const session = app.services.hub.get(sid)!;
      const seen: string[] = [];
      const moderator = {
        id: 'moderator-party',
        user: 'mo',
        roles: ['kube-mod'],
        mode: 'moderator' as const,
        output: (chunk: Uint8Array) => void seen.push(Buffer.from(chunk).toString()),
        event: () => undefined,
        sessionData: () => undefined,
        end: () => undefined,
      };
      await session.join(moderator);
      await shell.waitFor(/mo \(moderator\) joined: the session starts/, 'the start');
      await typeAndSee(shell, 'echo kube-$((2*5))', /kube-10/);
      expect(shell.output()).not.toContain('early-6');
      expect(seen.join('')).toContain('kube-10');
      session.leave(moderator.id, 'left');
      expect(await shell.exited).not.toBe(0);
      expect(shell.output()).toContain('the last required moderator left the session');
    } finally {
      await eve.cleanup();
    }
  });
});

describe('max_kubernetes_connections', () => {
  it('refuses a second exec stream while one is open, and allows it once that one ends', async () => {
    const shell = kubectlLimited.startInPty(['exec', '-it', '-n', 'prod', 'web-1', '--', 'sh'], {
      cols: 80,
      rows: 24,
    });
    await typeAndSee(shell, 'echo holding-$((3+4))', /holding-7/);
    const refused = await kubectlLimited.run(['exec', '-n', 'prod', 'web-1', '--', 'echo', 'two']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'too many Kubernetes connections: max_kubernetes_connections allows 1 at a time',
    );
    // A port-forward counts too.
    const forward = await kubectlLimited.run(['port-forward', '-n', 'prod', 'pod/web-1', ':8080']);
    expect(forward.code).not.toBe(0);
    expect(forward.stderr).toContain('too many Kubernetes connections');
    shell.write('exit 0\r');
    await shell.exited;
    await expect
      .poll(
        async () =>
          (await kubectlLimited.run(['exec', '-n', 'prod', 'web-1', '--', 'echo', 'two'])).stdout,
      )
      .toBe('two\n');
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

/** Types a line until its echo shows (a shell may not be reading yet when the first arrives). */
async function typeAndSee(shell: RunningKubectl, line: string, seen: RegExp): Promise<void> {
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
