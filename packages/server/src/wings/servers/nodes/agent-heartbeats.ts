import type { AgentHeartbeats } from '../../../modules/tunnel/index.js';
import { nodeHeartbeatSchema, type NodeHeartbeat } from './node-records.js';

/**
 * How the tunnel's heartbeat frames become node heartbeats: the agent's node is a tunnel node
 * of ours, so only what a node may say about itself is read from the frame; its id (the one its
 * certificate proved) and how it is reached are set here.
 */
export function agentNodeHeartbeats(
  record: (heartbeat: NodeHeartbeat) => Promise<unknown>,
): AgentHeartbeats<NodeHeartbeat> {
  return {
    read: (nodeId, frame) => {
      const heartbeat = nodeHeartbeatSchema.safeParse({
        hostname: frame.hostname,
        os: frame.os,
        labels: frame.labels,
        cmdLabels: frame.cmdLabels,
        hostPublicKey: frame.hostPublicKey,
        id: nodeId,
        addr: '',
        subKind: 'postern',
        tunnel: true,
      });
      if (heartbeat.success) return { ok: true, value: heartbeat.data };
      const issue = heartbeat.error.issues[0];
      return {
        ok: false,
        why: `${issue?.path.map(String).join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
      };
    },
    record,
  };
}
