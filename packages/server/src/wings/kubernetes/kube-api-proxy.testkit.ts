import { kubeClusterResourceSchema } from '@postern/contracts';
import type { IncomingMessage } from 'node:http';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { createRole } from '../../testing/roles.testkit.js';
import { createSelfSigned } from '../../tls/self-signed.js';
import { kubeServerName } from './kube-ca.js';

// The world of kube-api-proxy.test.ts: a listening app with clusters prod and dev in front of a
// recording stand-in API server, roles kube-prod (pods web-* in prod, as alice-k8s in devs and
// viewers) and kube-none (no Kubernetes user or group), and client certificates of the
// Kubernetes CA for alice@prod, alice@dev and nobody@prod.

/** A request as the stand-in API server received it. */
export interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface Answer {
  status: number;
  contentType: string;
  /** A Status or an object, decoded; a text answer (discovery's refusals) as its message. */
  body: {
    kind?: string;
    message?: string;
    reason?: string;
    items?: { metadata: { name: string } }[];
  };
}

/** The service account token the clusters give Postern; the stand-in sees it on each request. */
export const clusterToken = 'service-account-token-of-postern';

export interface KubeProxyLab {
  app: TestApp;
  /** The app's loopback port, where the Kubernetes listener is reached by server name. */
  port: number;
  /** Every request that reached the API server, oldest first. */
  seen: Seen[];
  /** Client certificates by `user@cluster`; a test may add its own. */
  certs: Record<string, { cert: string; key: string }>;
  /** GET `path` with `who`'s certificate (none without), through `port` unless said. */
  call(
    path: string,
    who?: string,
    headers?: Record<string, string | string[]>,
    through?: number,
  ): Promise<Answer>;
  /** A POST of `body` (JSON unless said otherwise) as `who`. */
  post(path: string, who: string, body: string | Buffer, contentType?: string): Promise<Answer>;
  close(): Promise<void>;
}

const podList = (names: [string, string][]) => ({
  kind: 'PodList',
  apiVersion: 'v1',
  metadata: {},
  items: names.map(([namespace, name]) => ({ metadata: { namespace, name } })),
});

export async function startKubeProxyLab(): Promise<KubeProxyLab> {
  const seen: Seen[] = [];
  const tls = await createSelfSigned(['localhost']);
  const upstream = createHttpsServer(tls, async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/api/v1/namespaces/prod/pods?')) {
      const names: [string, string][] = [
        ['prod', 'web-1'],
        ['prod', 'db-1'],
        ['prod', 'web-2'],
      ];
      return res.end(JSON.stringify(podList(names)));
    }
    res.end(JSON.stringify({ kind: 'Echo', url: req.url }));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const server = `https://127.0.0.1:${(upstream.address() as AddressInfo).port}`;

  const app = await createTestApp({
    https: await createSelfSigned(['proxy.test']),
    // The balancer of the PROXY protocol test connects from 127.0.0.2; clients from 127.0.0.1.
    trustedProxies: ['127.0.0.2'],
  });
  for (const [name, env] of [
    ['prod', 'prod'],
    ['dev', 'dev'],
  ]) {
    await app.services.kubeClusters.create(
      kubeClusterResourceSchema.parse({
        kind: 'kube_cluster',
        metadata: { name, labels: { env } },
        spec: { server, ca_cert: tls.cert, credentials: { token: clusterToken } },
      }),
      hostActor('test'),
    );
  }
  await createRole(app, 'kube-prod', {
    allow: {
      kubernetes_labels: { env: 'prod' },
      kubernetes_groups: ['devs', 'viewers'],
      kubernetes_users: ['alice-k8s'],
      kubernetes_resources: [
        { kind: 'pod', namespace: 'prod', name: 'web-*', verbs: ['get', 'list', 'watch'] },
        { kind: 'pod', namespace: 'prod', name: 'web-*', verbs: ['create'] },
      ],
    },
  });
  await createRole(app, 'kube-none', { allow: { kubernetes_labels: { env: 'prod' } } });
  await app.services.users.create({ name: 'alice', roles: ['kube-prod'] }, 'test');
  await app.services.users.create({ name: 'nobody', roles: ['kube-none'] }, 'test');
  const { port } = await app.listenOnLoopback();
  const kubeCa = await app.services.kubeCa();
  const certs: KubeProxyLab['certs'] = {};
  for (const [user, cluster] of [
    ['alice', 'prod'],
    ['alice', 'dev'],
    ['nobody', 'prod'],
  ] as const) {
    const issued = await kubeCa.userCertificate(user, cluster, 3_600_000);
    certs[`${user}@${cluster}`] = { cert: issued.certPem, key: issued.keyPem };
  }

  const send = (
    options: { method: string; path: string; who?: string; through?: number },
    headers: Record<string, string | string[]>,
    body?: string | Buffer,
  ) =>
    new Promise<Answer>((resolve, reject) => {
      const request = httpsRequest(
        {
          method: options.method,
          host: '127.0.0.1',
          port: options.through ?? port,
          path: options.path,
          servername: kubeServerName,
          ca: kubeCa.certPem,
          ...(options.who ? certs[options.who] : {}),
          headers,
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve(answerOf(res, text)));
        },
      );
      // A refusal may come before the whole body is sent; its answer is what counts.
      request.on('error', reject);
      request.end(body);
    });

  return {
    app,
    port,
    seen,
    certs,
    call: (path, who, headers = {}, through) =>
      send({ method: 'GET', path, who, through }, headers),
    post: (path, who, body, contentType = 'application/json') =>
      send({ method: 'POST', path, who }, { 'content-type': contentType }, body),
    close: async () => {
      await app.close();
      await new Promise((resolve) => upstream.close(resolve));
    },
  };
}

function answerOf(res: IncomingMessage, text: string): Answer {
  const contentType = res.headers['content-type'] ?? '';
  const body = contentType.startsWith('text/plain')
    ? { message: text.trimEnd() }
    : JSON.parse(text);
  return { status: res.statusCode!, contentType, body };
}
