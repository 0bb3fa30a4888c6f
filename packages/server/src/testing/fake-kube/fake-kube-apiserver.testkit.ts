import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { refuseUpgrade } from '../../wings/kubernetes/httpstream/raw-response.js';
import type { FakePodSpec, PodObject } from './kube-objects.testkit.js';
import { createFakeKubePki, type KeyPairPem } from './pki.testkit.js';
import { PodStore } from './pod-store.testkit.js';
import {
  authenticate,
  describeRequest,
  sendStatus,
  unauthorized,
  type FakeKubeRequest,
} from './requests.testkit.js';
import { serveRest } from './rest-routes.testkit.js';
import { serveStreaming } from './streaming-routes.testkit.js';

export type { FakeKubeRequest } from './requests.testkit.js';
export type { FakePodSpec, PodObject } from './kube-objects.testkit.js';

export interface FakeKubeApiServerOptions {
  /**
   * What /version reports (default v1.32.0). Google Cloud SDK's kubectl is a dispatcher that
   * picks the kubectl binary of the server's minor version, so this chooses the kubectl too.
   */
  gitVersion?: string;
  /** Also issue a client certificate that the fake accepts (CN the user, O the groups). */
  clientCertificate?: { commonName: string; organizations?: string[] };
  /** Take WebSocket upgrades for exec, attach and port-forward (default true). */
  websocket?: boolean;
  /** Namespaces that exist (default default, kube-system). Pods may name others. */
  namespaces?: string[];
  /** Judges every authenticated request: false, or a message, is a 403 Forbidden. */
  authorize?: (request: FakeKubeRequest) => boolean | string;
}

export interface FakePods {
  add(spec: FakePodSpec): PodObject;
  /** Changes a pod and emits MODIFIED to watchers. */
  modify(namespace: string, name: string, change: (pod: PodObject) => void): PodObject;
  /** Removes a pod: DELETED to watchers, followed logs end, its main process is killed. */
  delete(namespace: string, name: string): void;
  get(namespace: string, name: string): PodObject | undefined;
  list(namespace?: string): PodObject[];
  /** Adds to a container's log (the first container's when not named). */
  appendLog(namespace: string, name: string, text: string, container?: string): void;
}

export interface FakeKubeApiServer {
  /** https://127.0.0.1:<port> */
  url: string;
  /** The fake cluster CA: what a kubeconfig's certificate-authority-data holds. */
  caPem: string;
  /** A bearer token the fake takes (a service account's, in a real cluster). */
  token: string;
  clientCert?: KeyPairPem;
  /** Every request, in arrival order. */
  requests: FakeKubeRequest[];
  pods: FakePods;
  stop(): Promise<void>;
}

/**
 * FAKE: no Kubernetes API server can run on these machines. This one speaks the real wire
 * protocol for what stock kubectl does with pods: discovery, get/list/watch (JSON and
 * metav1.Table), logs, exec and attach (WebSocket v5/v4 and SPDY), port-forward (SPDY and the
 * WebSocket tunnel), behind HTTPS with its own CA and a bearer token or client certificate.
 * Exec runs real local processes; port-forward reaches loopback ports. It is not Kubernetes:
 * no scheduling, no RBAC (beyond the `authorize` hook), no writes through the API, no other
 * resources. What the tests prove ends at what it implements (docs/kubernetes.md).
 */
export async function startFakeKubeApiServer(
  options: FakeKubeApiServerOptions = {},
): Promise<FakeKubeApiServer> {
  const pki = await createFakeKubePki();
  const token = `fake-sa-token-${randomBytes(18).toString('base64url')}`;
  const clientCert = options.clientCertificate
    ? await pki.issueClient(
        options.clientCertificate.commonName,
        options.clientCertificate.organizations ?? [],
      )
    : undefined;
  const pods = new PodStore();
  const requests: FakeKubeRequest[] = [];
  const server = createServer({
    cert: pki.server.certPem,
    key: pki.server.keyPem,
    ca: [pki.caPem],
    requestCert: clientCert !== undefined,
    rejectUnauthorized: false,
  });
  const sockets = new Set<Duplex>();
  server.on('connection', (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  const admit = (req: IncomingMessage): FakeKubeRequest | number => {
    const described = describeRequest(req);
    requests.push(described);
    described.user = authenticate(req, token, clientCert !== undefined);
    if (!described.user) return 401;
    const verdict = options.authorize?.(described) ?? true;
    return verdict === true ? described : 403;
  };
  let serverAddress = '';
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const admitted = admit(req);
    if (admitted === 401) return unauthorized(res);
    if (admitted === 403) return sendStatus(res, 403, 'Forbidden', 'forbidden by the fake');
    serveRest(
      {
        pods,
        namespaces: options.namespaces ?? ['default', 'kube-system'],
        gitVersion: options.gitVersion ?? 'v1.32.0',
        serverAddress,
      },
      req,
      res,
    );
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const admitted = admit(req);
    if (admitted === 401) return void refuseUpgrade(socket, 401, 'Unauthorized');
    if (admitted === 403) return void refuseUpgrade(socket, 403, 'forbidden by the fake');
    serveStreaming({ pods, websocket: options.websocket ?? true }, req, socket, head);
  });
  server.on('tlsClientError', () => undefined);

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  serverAddress = `127.0.0.1:${port}`;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: pki.caPem,
    token,
    clientCert,
    requests,
    pods: {
      add: (spec) => pods.add(spec),
      modify: (namespace, name, change) => pods.modify(namespace, name, change),
      delete: (namespace, name) => pods.delete(namespace, name),
      get: (namespace, name) => pods.get(namespace, name),
      list: (namespace) => pods.list(namespace),
      appendLog: (namespace, name, text, container) =>
        pods.appendLog(namespace, name, text, container),
    },
    stop: async () => {
      pods.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
