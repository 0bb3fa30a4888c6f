import { randomUUID } from 'node:crypto';
import { startHaproxy } from '../../testing/haproxy.testkit.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import type { TestApp } from '../../testing/app-harness.testkit.js';
import { createSelfSigned } from '../../tls/self-signed.js';
import {
  clusterToken,
  startKubeProxyLab,
  type KubeProxyLab,
  type Seen,
} from './kube-api-proxy.testkit.js';

// The Kubernetes API proxy on the web port: TLS routed by server name to the Kubernetes listener,
// client certificates from the Kubernetes CA, the roles' labels, users, groups and resources,
// and what reaches the API server. The API server here is a recording stand-in that answers every
// request with what it received (kubectl against a fuller fake: kubectl-through-postern.test.ts); the world is in
// kube-api-proxy.testkit.ts.

let lab: KubeProxyLab;
let app: TestApp;
let port: number;
let seen: Seen[];
let certs: KubeProxyLab['certs'];

beforeAll(async () => {
  lab = await startKubeProxyLab();
  ({ app, port, seen, certs } = lab);
});

afterAll(() => lab?.close());

const call: KubeProxyLab['call'] = (...args) => lab.call(...args);
const post: KubeProxyLab['post'] = (...args) => lab.post(...args);
const lastSeen = () => seen.at(-1)!;

const podNamed = (metadata: object) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata, spec: { containers: [] } });

describe('the Kubernetes listener on the web port', () => {
  it('is reached by its server name and presents a certificate of the Kubernetes CA', async () => {
    const answer = await call('/kube/prod/version', 'alice@prod');
    expect(answer.status).toBe(200);
    expect(lastSeen().url).toBe('/version');
  });

  it('behind a trusted balancer sending the PROXY protocol, audits the client’s address', async () => {
    const balancer = await startHaproxy({
      backends: [{ host: '127.0.0.1', port }],
      sendProxy: true,
      check: false,
      source: '127.0.0.2',
    });
    try {
      const started = new Date();
      const answer = await call('/kube/prod/version', 'alice@prod', {}, balancer.port);
      expect(answer.status).toBe(200);
      await app.services.kubeRequestAudit.flush();
      const { events } = await app.audit.search({
        from: started,
        to: new Date(Date.now() + 60_000),
        eventTypes: ['kube.request'],
        limit: 10,
      });
      // Without the header it would be the balancer's 127.0.0.2.
      expect(events.map((event) => event['addr.remote'])).toEqual(['127.0.0.1']);
    } finally {
      await balancer.stop();
    }
  });

  it('answers 401 in Kubernetes terms without a client certificate', async () => {
    const before = seen.length;
    const answer = await call('/kube/prod/api/v1/namespaces/prod/pods');
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
    // Discovery's client decodes no Status: the reason as text, which kubectl prints.
    const discovery = await call('/kube/prod/api');
    expect(discovery).toEqual({
      status: 401,
      contentType: 'text/plain; charset=utf-8',
      body: { message: 'a client certificate from postern kube login is required' },
    });
    expect(seen.length).toBe(before);
  });

  it('says why a certificate it cannot trust counts for nothing: expired, or from another CA', async () => {
    const kubeCa = await app.services.kubeCa();
    const expired = await kubeCa.userCertificate('alice', 'prod', 1);
    // TLS compares whole seconds: past the second it ends in.
    await expect.poll(() => Date.now() > expired.notAfter.getTime() + 1_000).toBe(true);
    certs['expired'] = { cert: expired.certPem, key: expired.keyPem };
    const foreign = await createSelfSigned(['alice']);
    certs['foreign'] = { cert: foreign.cert, key: foreign.key };
    const before = seen.length;
    const path = '/kube/prod/api/v1/namespaces/prod/pods';
    expect(await call(path, 'expired')).toMatchObject({
      status: 401,
      body: { message: 'the client certificate has expired: run postern kube login again' },
    });
    expect(await call(path, 'foreign')).toMatchObject({
      status: 401,
      body: {
        message:
          "the client certificate is not from this cluster's Kubernetes CA: run postern kube login",
      },
    });
    expect(seen.length).toBe(before);
  });

  it('refuses a malformed cluster name in the path, with or without a certificate, and stays up', async () => {
    // decodeURIComponent throws on %E0: thrown in the request handler, it ended the process.
    const unsigned = await call('/kube/%E0/api');
    expect(unsigned.status).toBe(401);
    const signed = await call('/kube/%E0/api/v1/pods', 'alice@prod');
    expect(signed.status).toBe(403);
    expect(signed.body.message).toContain('this certificate is for Kubernetes cluster prod');
    expect((await call('/kube/prod/version', 'alice@prod')).status).toBe(200);
  });

  it("refuses a certificate for one cluster on another's path", async () => {
    const answer = await call('/kube/prod/api', 'alice@dev');
    expect(answer.status).toBe(403);
    expect(answer.body.message).toMatch(/this certificate is for Kubernetes cluster dev, not prod/);
  });
});

describe('what reaches the API server', () => {
  it("carries the cluster's credential and the impersonation the roles allow, never the client's", async () => {
    await call('/kube/prod/api/v1/namespaces/prod/pods/web-1', 'alice@prod', {
      authorization: 'Bearer stolen',
      'impersonate-uid': 'x',
    }).then((answer) => expect(answer.status).toBe(403));
    const answer = await call('/kube/prod/api/v1/namespaces/prod/pods/web-1', 'alice@prod', {
      authorization: 'Bearer stolen',
    });
    expect(answer.status).toBe(200);
    const headers = lastSeen().headers;
    expect(headers.authorization).toBe(`Bearer ${clusterToken}`);
    expect(headers['impersonate-user']).toBe('alice-k8s');
    expect(headers['impersonate-group']).toBe('devs, viewers');
  });

  it('lets the client narrow its groups to ones the roles allow, and refuses others', async () => {
    const narrowed = await call('/kube/prod/api/v1/namespaces/prod/pods/web-1', 'alice@prod', {
      'impersonate-group': 'viewers',
    });
    expect(narrowed.status).toBe(200);
    expect(lastSeen().headers['impersonate-group']).toBe('viewers');
    const before = seen.length;
    const refused = await call('/kube/prod/api/v1/namespaces/prod/pods/web-1', 'alice@prod', {
      'impersonate-group': 'system:masters',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/acting in Kubernetes group "system:masters"/);
    expect(seen.length).toBe(before);
  });

  it('refuses a request outside kubernetes_resources before the API server sees it', async () => {
    const before = seen.length;
    for (const path of [
      '/kube/prod/api/v1/namespaces/prod/pods/db-1',
      '/kube/prod/api/v1/namespaces/prod/secrets',
      '/kube/prod/api/v1/namespaces/kube-system/pods',
    ]) {
      const answer = await call(path, 'alice@prod');
      expect(answer.status, path).toBe(403);
      expect(answer.body.reason).toBe('Forbidden');
    }
    expect(seen.length).toBe(before);
  });

  it('passes on only the listed objects the roles reach', async () => {
    const answer = await call('/kube/prod/api/v1/namespaces/prod/pods?limit=500', 'alice@prod');
    expect(answer.status).toBe(200);
    expect(answer.body.items!.map((item) => item.metadata.name)).toEqual(['web-1', 'web-2']);
  });

  it("refuses every path, discovery too, on a cluster outside the roles' labels", async () => {
    const before = seen.length;
    for (const path of ['/kube/dev/api', '/kube/dev/version', '/kube/dev/api/v1/pods']) {
      const answer = await call(path, 'alice@dev');
      expect(answer.status, path).toBe(403);
      expect(answer.body.message).toBe('your roles do not reach Kubernetes cluster dev');
    }
    expect(seen.length).toBe(before);
  });

  it('refuses every path, discovery too, to a user whose roles name no Kubernetes user or group', async () => {
    const answer = await call('/kube/prod/api', 'nobody@prod');
    expect(answer.status).toBe(403);
    expect(answer.body.message).toMatch(/name no kubernetes_users or kubernetes_groups/);
  });

  it('audits each request with its status', async () => {
    await app.services.kubeRequestAudit.flush();
    const { events } = await app.audit.search({
      from: new Date(Date.now() - 60_000),
      to: new Date(Date.now() + 60_000),
      eventTypes: ['kube.request'],
      limit: 100,
    });
    const statuses = events.map((event) => [event.request_path, event.response_code]);
    expect(statuses).toContainEqual(['/api/v1/namespaces/prod/pods/db-1', 403]);
    expect(statuses).toContainEqual(['/api/v1/namespaces/prod/pods/web-1', 200]);
    expect(events.find((event) => event.response_code === 200)).toMatchObject({
      user: 'alice',
      kubernetes_cluster: 'prod',
      kubernetes_users: ['alice-k8s'],
    });
  });
});

describe('a create the roles allow for some names only', () => {
  const pods = '/kube/prod/api/v1/namespaces/prod/pods';

  it('goes on, its body as it came, when the name in the body passes', async () => {
    const pod = podNamed({ name: 'web-3' });
    const answer = await post(pods, 'alice@prod', pod);
    expect(answer.status).toBe(200);
    expect(lastSeen()).toMatchObject({
      method: 'POST',
      url: '/api/v1/namespaces/prod/pods',
      body: pod,
    });
    expect(lastSeen().headers['content-length']).toBe(String(Buffer.byteLength(pod)));
  });

  it('is refused before the API server sees it when the name does not pass', async () => {
    const before = seen.length;
    const answer = await post(pods, 'alice@prod', podNamed({ name: 'db-3' }));
    expect(answer.status).toBe(403);
    expect(answer.body.message).toBe(
      'your roles do not allow create on pods "db-3" in namespace "prod"',
    );
    expect(seen.length).toBe(before);
  });

  it('refuses what it cannot judge: a generateName, YAML, another namespace, bad JSON, too much', async () => {
    const before = seen.length;
    const cases: [string | Buffer, string, number, RegExp][] = [
      [
        podNamed({ generateName: 'web-' }),
        'application/json',
        403,
        /give the object a metadata\.name/,
      ],
      [
        'metadata:\n  name: web-4\n',
        'application/yaml',
        415,
        /send the object as application\/json/,
      ],
      [podNamed({ name: 'web-5', namespace: 'dev' }), 'application/json', 400, /namespace "dev"/],
      ['{"metadata":', 'application/json', 400, /not valid JSON/],
      [Buffer.alloc(3 * 1024 * 1024 + 1, 0x20), 'application/json', 413, /larger than/],
    ];
    for (const [body, type, status, message] of cases) {
      const answer = await post(pods, 'alice@prod', body, type);
      expect(answer.status, type).toBe(status);
      expect(answer.body.message).toMatch(message);
    }
    expect(seen.length).toBe(before);
  });
});

describe('locks', () => {
  it('refuse a certificate whose login was proven with a locked MFA device, and only it', async () => {
    const kubeCa = await app.services.kubeCa();
    const device = randomUUID();
    const issued = await kubeCa.userCertificate('alice', 'prod', 600_000, { mfaDevice: device });
    certs['by-device'] = { cert: issued.certPem, key: issued.keyPem };
    expect((await call('/kube/prod/version', 'by-device')).status).toBe(200);
    const lock = await app.services.locks.create(
      { targets: { mfa_device: device }, message: 'key lost' },
      hostActor('test'),
    );
    try {
      expect(await call('/kube/prod/version', 'by-device')).toMatchObject({
        status: 403,
        body: { message: 'locked: key lost' },
      });
      expect((await call('/kube/prod/version', 'alice@prod')).status).toBe(200);
    } finally {
      await app.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });

  it("refuse a bot instance's certificate once that instance is locked, and only it", async () => {
    const kubeCa = await app.services.kubeCa();
    const instance = randomUUID();
    const issued = await kubeCa.userCertificate('alice', 'prod', 600_000, {
      botInstance: instance,
    });
    certs['bot-instance'] = { cert: issued.certPem, key: issued.keyPem };
    expect((await call('/kube/prod/version', 'bot-instance')).status).toBe(200);
    const lock = await app.services.locks.create(
      { targets: { bot_instance: instance }, message: 'runner compromised' },
      hostActor('test'),
    );
    try {
      expect(await call('/kube/prod/version', 'bot-instance')).toMatchObject({
        status: 403,
        body: { message: 'locked: runner compromised' },
      });
      expect((await call('/kube/prod/version', 'alice@prod')).status).toBe(200);
    } finally {
      await app.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });

  it('refuse a per-session certificate whose check was answered with a locked device', async () => {
    const kubeCa = await app.services.kubeCa();
    const [login, check] = [randomUUID(), randomUUID()];
    const issued = await kubeCa.userCertificate('alice', 'prod', 60_000, {
      sessionMfaVerified: true,
      mfaDevice: login,
      sessionMfaDevice: check,
    });
    certs['checked-by-key'] = { cert: issued.certPem, key: issued.keyPem };
    expect((await call('/kube/prod/version', 'checked-by-key')).status).toBe(200);
    const lock = await app.services.locks.create(
      { targets: { mfa_device: check }, message: 'key lost' },
      hostActor('test'),
    );
    try {
      expect(await call('/kube/prod/version', 'checked-by-key')).toMatchObject({
        status: 403,
        body: { message: 'locked: key lost' },
      });
    } finally {
      await app.services.locks.remove(lock.metadata.name, hostActor('test'));
    }
  });

  it("turn the user's next request into 403", async () => {
    await app.services.locks.create(
      { targets: { user: 'alice' }, message: 'incident 42' },
      hostActor('test'),
    );
    const locked = async () => call('/kube/prod/version', 'alice@prod');
    await expect.poll(async () => (await locked()).status).toBe(403);
    expect((await locked()).body.message).toBe('locked: incident 42');
  });
});
