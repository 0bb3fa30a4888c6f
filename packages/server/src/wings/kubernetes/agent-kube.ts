import {
  kubeClusterNameSchema,
  kubeClusterResourceSchema,
  type KubeClusterResource,
} from '@postern/contracts';
import { z } from 'zod';
import type { AgentHeartbeats } from '../../modules/tunnel/index.js';
import type { KubeClustersService } from './kube-clusters.service.js';

/** An agent's `kube_clusters` as its heartbeat lists them: names and labels, no credentials. */
const agentClustersSchema = z
  .array(
    z
      .object({
        name: kubeClusterNameSchema,
        labels: z.record(z.string().max(256), z.string().max(256)),
      })
      .strict(),
  )
  .max(64)
  .default([]);

export interface AgentKubeReport {
  nodeId: string;
  clusters: KubeClusterResource[];
}

/**
 * How the `kube_clusters` of an agent's heartbeat become cluster records (source `agent`,
 * expiring unless renewed), so a cluster reachable only from inside the agent's network is listed
 * and used like the proxy's own. The agent keeps its kubeconfig: the proxy authorizes each
 * request and the agent adds the cluster's credential (agent/kube-forwarder.ts).
 */
export function agentKubeHeartbeats(
  clusters: KubeClustersService,
  ttlMs: number,
): AgentHeartbeats<AgentKubeReport> {
  return {
    read: (nodeId, frame) => {
      const parsed = agentClustersSchema.safeParse(frame.kube_clusters);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return {
          ok: false,
          why: `kube_clusters.${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`,
        };
      }
      const resources = parsed.data.map((cluster) =>
        kubeClusterResourceSchema.parse({
          kind: 'kube_cluster',
          metadata: { name: cluster.name, labels: cluster.labels },
        }),
      );
      return { ok: true, value: { nodeId, clusters: resources } };
    },
    record: ({ nodeId, clusters: served }) => clusters.reportFromAgent(nodeId, served, ttlMs),
  };
}
