import { apiPaths, kubeClusterResourceSchema } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import {
  startFakeKubeApiServer,
  type FakeKubeApiServer,
} from '../../../testing/fake-kube/fake-kube-apiserver.testkit.js';
import { openTerminal } from '../../../testing/terminal-client.testkit.js';

// Exec in the browser: the terminal socket with a pod and command, as a live k8s session on the
// fake API server (FAKE: testing/fake-kube) that another console user joins from the servers'
// terminal socket, which joins any live session by its id.

let app: TestApp;
let fake: FakeKubeApiServer;
let baseUrl: string;
let alice: Record<string, string>;
let watcher: Record<string, string>;
let outsider: Record<string, string>;

beforeAll(async () => {
  fake = await startFakeKubeApiServer({ namespaces: ['default', 'prod'] });
  fake.pods.add({ name: 'web-1', namespace: 'prod' });
  fake.pods.add({ name: 'db-1', namespace: 'prod' });
  app = await createTestApp({
    kubeClusters: [
      kubeClusterResourceSchema.parse({
        kind: 'kube_cluster',
        metadata: { name: 'prod', labels: { env: 'prod' } },
        spec: { server: fake.url, ca_cert: fake.caPem, credentials: { token: fake.token } },
      }),
    ],
  });
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      hostActor('test'),
    );
  await role('web-exec', {
    kubernetes_labels: { env: 'prod' },
    kubernetes_groups: ['web'],
    kubernetes_resources: [{ kind: 'pod', namespace: 'prod', name: 'web-*', verbs: ['exec'] }],
  });
  await role('watcher', {
    join_sessions: [{ name: 'watch', roles: ['web-exec'], kinds: ['k8s'], modes: ['observer'] }],
  });
  await role('servers-only', { node_labels: { '*': '*' }, logins: ['root'] });
  baseUrl = (await app.listenOnLoopback()).baseUrl;
  alice = await app.signIn(['web-exec'], 'alice');
  watcher = await app.signIn(['watcher'], 'wade');
  outsider = await app.signIn(['servers-only'], 'sam');
});

afterAll(async () => {
  await app?.close();
  await fake?.stop();
});

const exec = (headers: Record<string, string>, params: object) =>
  openTerminal({
    baseUrl,
    headers,
    path: apiPaths.kubeExec('-current-', 'prod'),
    params: { term: { w: 100, h: 30 }, namespace: 'prod', container: 'main', ...params },
  });

describe('exec in the browser', () => {
  it('opens a shell in the pod as a live k8s session, which another user observes', async () => {
    const shell = await exec(alice, { pod: 'web-1', command: '/bin/sh' });
    expect(shell.response.status).toBe('ok');
    shell.type('echo from-$((40+2))\r');
    await shell.waitForOutput('from-42');
    const tracker = app.services.hub.list().find((t) => t.kind === 'k8s' && t.owner === 'alice')!;
    expect(tracker).toMatchObject({
      serverHostname: 'prod/prod/web-1',
      terminal: { w: 100, h: 30 },
    });
    const asked = fake.requests.findLast((request) => request.path.endsWith('/web-1/exec'));
    expect(asked?.query).toMatchObject({ command: ['/bin/sh'], tty: ['true'], stdin: ['true'] });
    expect(asked?.headers.impersonate['impersonate-user']).toEqual(['alice']);

    const observer = await openTerminal({
      baseUrl,
      headers: watcher,
      params: { sid: tracker.id, mode: 'observer', term: { w: 100, h: 30 } },
    });
    expect(observer.response.status).toBe('ok');
    await observer.waitForOutput('from-42');
    shell.type('echo later-$((1+2))\r');
    await observer.waitForOutput('later-3');
    shell.type('exit\r');
    await shell.closed;
    observer.close();
  });

  it('refuses a pod outside kubernetes_resources, and a cluster the roles do not reach', async () => {
    const before = fake.requests.length;
    const refused = await exec(alice, { pod: 'db-1' });
    expect((await refused.closed).reason).toContain('your roles do not allow exec on pods/exec');
    expect(refused.output()).toBe('');
    expect(fake.requests.slice(before).some((r) => r.path.includes('/db-1/'))).toBe(false);
    const hidden = await exec(outsider, { pod: 'web-1' });
    expect((await hidden.closed).reason).toContain('no Kubernetes cluster named prod');
  });

  it('refuses a socket without a valid bearer', async () => {
    const anonymous = await openTerminal({
      baseUrl,
      headers: { cookie: alice.cookie ?? '' },
      token: 'not-a-token',
      path: apiPaths.kubeExec('-current-', 'prod'),
      params: { term: { w: 80, h: 24 }, namespace: 'prod', pod: 'web-1' },
    });
    expect(anonymous.response).toMatchObject({ status: 'error', message: 'not authenticated' });
  });
});
