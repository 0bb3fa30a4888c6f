import type { Duplex } from 'node:stream';
import type { KubeClusterRecord } from './kube-kind.js';
import { directEndpoint, tunnelEndpoint, type KubeEndpoint } from './upstream/kube-endpoint.js';
import { targetOfSpec } from './upstream/kube-target.js';

/**
 * One endpoint per cluster (its pool of connections to the API server), made again when the
 * cluster's record changes, so an edited server, CA or credential takes effect at once.
 */
export class KubeEndpoints {
  readonly #made = new Map<string, { version: string; endpoint: KubeEndpoint }>();

  constructor(private readonly dialAgent: (cluster: string) => Promise<Duplex>) {}

  /** Throws a ConfigError when the cluster's record names no usable API server. */
  endpointFor(cluster: KubeClusterRecord): KubeEndpoint {
    const name = cluster.metadata.name;
    const version = JSON.stringify([cluster.source, cluster.agentId, cluster.spec]);
    const made = this.#made.get(name);
    if (made?.version === version) return made.endpoint;
    made?.endpoint.close();
    const endpoint =
      cluster.source === 'agent'
        ? tunnelEndpoint(() => this.dialAgent(name))
        : directEndpoint(targetOfSpec(name, cluster.spec));
    this.#made.set(name, { version, endpoint });
    return endpoint;
  }

  close(): void {
    for (const { endpoint } of this.#made.values()) endpoint.close();
    this.#made.clear();
  }
}
