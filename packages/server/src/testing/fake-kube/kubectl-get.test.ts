import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeKubeApiServer, type FakeKubeApiServer } from './fake-kube-apiserver.testkit.js';
import { kubectlAgainst, type KubectlHarness } from './kubectl.testkit.js';

// The real kubectl against the fake API server, no proxy in between: reads (discovery, get,
// watch, logs) and authentication. What kubectl sent is in `fake.requests`.

let fake: FakeKubeApiServer;
let kubectl: KubectlHarness;

beforeAll(async () => {
  fake = await startFakeKubeApiServer({
    clientCertificate: { commonName: 'alice', organizations: ['devs'] },
  });
  kubectl = await kubectlAgainst(fake);
  fake.pods.add({ name: 'web-1', labels: { app: 'web' } });
  fake.pods.add({
    name: 'db-1',
    labels: { app: 'db' },
    containers: [{ name: 'postgres' }, { name: 'sidecar' }],
  });
  fake.pods.add({ name: 'dns-1', namespace: 'kube-system', labels: { app: 'dns' } });
});

afterAll(async () => {
  await kubectl.cleanup();
  await fake.stop();
});

/** The table kubectl printed: header cells, then one row of cells per line. */
function table(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/));
}

describe('kubectl get against the fake API server', () => {
  it('prints pods as a table: NAME READY STATUS RESTARTS AGE', async () => {
    const { stdout, code } = await kubectl.run(['get', 'pods']);
    expect(code).toBe(0);
    const [header, ...rows] = table(stdout);
    expect(header).toEqual(['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(rows.map((row) => row.slice(0, 4))).toEqual([
      ['db-1', '2/2', 'Running', '0'],
      ['web-1', '1/1', 'Running', '0'],
    ]);
    // kubectl asked for a metav1.Table; the fake answered with one.
    const list = fake.requests.findLast(
      (request) => request.path === '/api/v1/namespaces/default/pods',
    );
    expect(list?.headers.accept).toMatch(/as=Table/);
  });

  it('lists every namespace with -A, adding the NAMESPACE column', async () => {
    const { stdout } = await kubectl.run(['get', 'pods', '-A']);
    const [header, ...rows] = table(stdout);
    expect(header).toEqual(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(rows.map((row) => `${row[0]}/${row[1]}`)).toEqual([
      'default/db-1',
      'default/web-1',
      'kube-system/dns-1',
    ]);
  });

  it('filters with a label selector', async () => {
    const { stdout } = await kubectl.run(['get', 'pods', '-l', 'app in (web,dns)', '-A']);
    expect(
      table(stdout)
        .slice(1)
        .map((row) => row[1]),
    ).toEqual(['web-1', 'dns-1']);
    expect(fake.requests.at(-1)?.query.labelSelector).toEqual(['app in (web,dns)']);
  });

  it('gets one pod as JSON, the v1.Pod the fake holds', async () => {
    const { stdout, code } = await kubectl.run(['get', 'pod', 'web-1', '-o', 'json']);
    expect(code).toBe(0);
    const pod = JSON.parse(stdout) as { kind: string; metadata: { name: string; labels: object } };
    expect(pod.kind).toBe('Pod');
    expect(pod.metadata).toMatchObject({ name: 'web-1', labels: { app: 'web' } });
  });

  it('reports a missing pod with the NotFound Status message', async () => {
    const { stderr, code } = await kubectl.run(['get', 'pod', 'nope']);
    expect(code).toBe(1);
    expect(stderr).toContain('Error from server (NotFound): pods "nope" not found');
  });

  it('sees a pod added while it watches', async () => {
    const watch = kubectl.start(['get', 'pods', '--watch']);
    await watch.waitFor(/web-1\s+1\/1\s+Running/, 'the first listing');
    fake.pods.add({ name: 'late-1' });
    await watch.waitFor(/late-1\s+1\/1\s+Running/, 'the added pod');
    watch.stop();
    const watchRequest = fake.requests.findLast((request) => request.query.watch !== undefined);
    expect(watchRequest?.query.watch).toEqual(['true']);
    fake.pods.delete('default', 'late-1');
  });

  it('prints a container log, and follows it until stopped', async () => {
    fake.pods.appendLog('default', 'web-1', 'first line\nsecond line\n');
    const { stdout } = await kubectl.run(['logs', 'web-1']);
    expect(stdout).toBe('first line\nsecond line\n');
    const follow = kubectl.start(['logs', '-f', 'web-1']);
    await follow.waitFor(/second line/, 'the log so far');
    fake.pods.appendLog('default', 'web-1', 'third line\n');
    await follow.waitFor(/third line/, 'the appended line');
    follow.stop();
    expect(
      fake.requests.findLast((request) => request.path.endsWith('/log'))?.query.follow,
    ).toEqual(['true']);
  });

  it('reads the log of the container named with -c', async () => {
    fake.pods.appendLog('default', 'db-1', 'sidecar says hi\n', 'sidecar');
    const { stdout } = await kubectl.run(['logs', 'db-1', '-c', 'sidecar']);
    expect(stdout).toBe('sidecar says hi\n');
  });
});

describe('authentication at the fake API server', () => {
  it('takes a client certificate its CA signed', async () => {
    const withCertificate = await kubectlAgainst(fake, { auth: 'client-certificate' });
    const { code } = await withCertificate.run(['get', 'pods']);
    await withCertificate.cleanup();
    expect(code).toBe(0);
    expect(fake.requests.at(-1)?.user).toEqual({
      name: 'alice',
      groups: ['devs'],
      via: 'client-certificate',
    });
  });

  it('answers 401 to a wrong token', async () => {
    const stranger = await kubectlAgainst(fake, { token: 'not-the-token' });
    const { stderr, code } = await stranger.run(['get', 'pods']);
    await stranger.cleanup();
    expect(code).toBe(1);
    expect(stderr).toMatch(/Unauthorized|must be logged in/);
  });

  it('records every Impersonate-* header kubectl sends', async () => {
    await kubectl.run(['get', 'pods', '--as', 'bob', '--as-group', 'devs', '--as-group', 'ops']);
    const last = fake.requests.at(-1)!;
    expect(last.authorization).toBe(true);
    expect(last.headers.impersonate).toEqual({
      'impersonate-user': ['bob'],
      'impersonate-group': ['devs', 'ops'],
    });
  });
});
