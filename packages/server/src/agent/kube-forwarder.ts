import { createServer, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  forwardRequest,
  forwardUpgrade,
  passedHeaders,
} from '../wings/kubernetes/upstream/forward.js';
import { directEndpoint, type KubeEndpoint } from '../wings/kubernetes/upstream/kube-endpoint.js';
import { readKubeconfig } from '../wings/kubernetes/upstream/kubeconfig.js';

/** A Kubernetes cluster this agent serves (`--kube NAME --kubeconfig FILE`). */
export interface AgentKubeCluster {
  name: string;
  kubeconfig: string;
  context?: string;
}

/**
 * Serves the proxy's requests for one cluster through the tunnel: plain HTTP on each dialled
 * stream, every request (and upgrade) passed to the API server with the kubeconfig's credential.
 * The proxy has authorized it and set the impersonation; the agent only adds the credential, which
 * never leaves this host.
 */
export class KubeForwarder {
  readonly #endpoint: KubeEndpoint;
  readonly #server: Server;

  constructor(cluster: AgentKubeCluster) {
    this.#endpoint = directEndpoint(
      readKubeconfig(cluster.kubeconfig, cluster.context, `--kube ${cluster.name}`),
    );
    // Only the proxy's credential-free headers go on; the endpoint adds the cluster's own.
    const headers = (raw: Parameters<typeof passedHeaders>[0]) =>
      passedHeaders(raw, (name) => name === 'authorization');
    this.#server = createServer((req, res) =>
      forwardRequest(req, res, this.#endpoint, req.url ?? '/', headers(req.headers)),
    );
    this.#server.on('upgrade', (req, socket, head) =>
      forwardUpgrade(req, socket, head, this.#endpoint, req.url ?? '/', headers(req.headers)),
    );
    this.#server.requestTimeout = 0;
  }

  /** One stream the proxy dialled: an HTTP connection, kept alive as long as the proxy likes. */
  serve(stream: Duplex): void {
    stream.on('error', () => stream.destroy());
    this.#server.emit('connection', stream);
  }

  close(): void {
    this.#server.close();
    this.#endpoint.close();
  }
}
