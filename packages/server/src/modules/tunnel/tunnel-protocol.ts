import type { RawData } from 'ws';
import { z } from 'zod';

/**
 * The reverse tunnel between an agent and a proxy (docs/agents.md). Both sides import this file,
 * so the frames cannot drift apart.
 *
 * Control socket (`agentPaths.tunnel`), JSON text frames:
 *   agent → proxy  {nodeId, hostCertificate}
 *   proxy → agent  {challenge}                       32 random bytes, base64
 *   agent → proxy  {signature}                       Ed25519 over proofMessage(), base64
 *   proxy → agent  {type:'ready', pingIntervalMs, userCaKeys}
 *   agent → proxy  {type:'heartbeat', hostname, os, labels, cmdLabels, hostPublicKey}   repeatedly
 *   proxy → agent  {type:'dial', id}                 open a data socket for connection `id`
 *   proxy → agent  {type:'certificate', hostCertificate}   a renewed host certificate, to keep
 *   proxy → agent  {type:'error', message}           a refusal (then close) or a rejected heartbeat
 *
 * Data socket (`agentPaths.dial(id)`): the agent's first text frame is {id}; every later frame is
 * raw bytes of one SSH connection to the agent's node service.
 */

/** Close code for a peer that broke the protocol or failed to prove itself (RFC 6455 policy violation). */
export const POLICY_VIOLATION = 1008;
/** Close code when the proxy is shutting down or the agent is replaced by a newer connection. */
export const GOING_AWAY = 1001;

export const proxyPingIntervalMs = 20_000;
export const dialTimeoutMs = 10_000;
export const authTimeoutMs = 10_000;

const proofDomain = 'postern-tunnel-v1';

/**
 * What the agent signs: a fixed label, the node id it claims and the proxy's challenge. The label
 * keeps this signature from ever being valid for anything else signed with the host key (SSH
 * handshakes, for instance), and the node id binds it to the certificate that was presented.
 */
export function proofMessage(nodeId: string, challenge: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${proofDomain}\0${nodeId}\0`, 'utf8'), challenge]);
}

const base64 = z
  .string()
  .max(4096)
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'expected base64');

export const helloSchema = z.object({
  nodeId: z.string().min(1).max(128),
  hostCertificate: z
    .string()
    .min(1)
    .max(16 * 1024),
});
export const proofSchema = z.object({ signature: base64 });
export const challengeSchema = z.object({ challenge: base64 });
export const dataHelloSchema = z.object({ id: z.string().regex(/^[0-9a-f]{32}$/) });

/** What the proxy may send once the agent is in. */
export const proxyMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ready'),
    pingIntervalMs: z.number().int().positive().optional(),
    /** How often to heartbeat: the proxy owns the offline timeout, so it sets the pace. */
    heartbeatMs: z.number().int().min(100).optional(),
    userCaKeys: z.array(z.string()).optional(),
  }),
  z.object({ type: z.literal('dial'), id: z.string().regex(/^[0-9a-f]{32}$/) }),
  z.object({
    type: z.literal('certificate'),
    hostCertificate: z
      .string()
      .min(1)
      .max(16 * 1024),
  }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);
export type ProxyMessage = z.infer<typeof proxyMessageSchema>;

/** The fields of an agent's heartbeat the proxy takes; identity fields are the proxy's to set. */
export interface AgentHeartbeat {
  type: 'heartbeat';
  hostname: string;
  os: string;
  labels: Record<string, string>;
  cmdLabels: Record<string, { command: string[]; period: string; result: string }>;
  hostPublicKey: string;
}

/** JSON of a text frame, or undefined for a binary frame or malformed text. */
export function parseTextFrame(data: RawData, isBinary: boolean): unknown {
  if (isBinary) return undefined;
  const bytes = Array.isArray(data)
    ? Buffer.concat(data)
    : Buffer.isBuffer(data)
      ? data
      : Buffer.from(data);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
