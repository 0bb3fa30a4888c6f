import type { RawData } from 'ws';
import { z } from 'zod';

/**
 * The reverse tunnel between an agent and a proxy (docs/agents.md). Both sides import this file,
 * so the frames cannot drift apart.
 *
 * Control socket (`agentPaths.tunnel`), JSON text frames:
 *   agent → proxy  {version, nodeId, hostCertificate, services}   services: [{kind, name}]
 *   proxy → agent  {challenge}                       32 random bytes, base64
 *   agent → proxy  {signature}                       Ed25519 over proofMessage(), base64
 *   proxy → agent  {type:'ready', version, pingIntervalMs, userCaKeys, proxyId?}
 *   proxy → agent  {type:'proxies', proxies: [{id, addr}]}   every proxy of the cluster, after
 *                                                    ready and whenever the list changes
 *   agent → proxy  {type:'heartbeat', hostname, os, labels, cmdLabels, hostPublicKey, apps?}  repeatedly
 *   proxy → agent  {type:'dial', id, service}        open a data socket for connection `id` to
 *                                                    the advertised service {kind, name}
 *   agent → proxy  {type:'dialRefused', id, message} this agent serves no such service
 *   proxy → agent  {type:'certificate', hostCertificate}   a renewed host certificate, to keep
 *   proxy → agent  {type:'error', message}           a refusal (then close) or a rejected heartbeat
 *   proxy → agent  {type:'draining'}                 this proxy stops soon (SIGTERM): when this
 *                                                    tunnel closes, reconnect at once (through a
 *                                                    load balancer, to another proxy); a proxy
 *                                                    that drains refuses new tunnels
 *
 * Data socket (`agentPaths.dial(id)`): the agent's first text frame is {id}; every later frame is
 * raw bytes of one connection to the dialled service (for a node: SSH to its node service).
 *
 * Version 1 (no `version`, no `services`: the node id was the only thing an agent served) is
 * refused in both directions with a message naming both versions.
 */
export const tunnelProtocolVersion = 2;

/**
 * Why two ends cannot talk, worded for whoever reads the log: which side speaks what, and which
 * side to upgrade (the older one).
 */
export function versionMismatch(
  side: 'agent' | 'proxy',
  theirs: number,
  ours = tunnelProtocolVersion,
): string {
  const other = side === 'agent' ? 'proxy' : 'agent';
  const older = theirs < ours ? side : other;
  return `${side} speaks tunnel protocol ${theirs}, this ${other} speaks ${ours}: upgrade the ${older}`;
}

/**
 * What an agent serves through its tunnel: its node service (`{kind:'node', name: <node id>}`)
 * and the apps it was started with (`{kind:'app', name}`); databases, Kubernetes clusters and
 * desktops are further kinds. Which kinds a proxy accepts is its wings' say (AgentReports).
 */
export const tunnelServiceSchema = z.object({
  kind: z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'expected a lowercase kind'),
  name: z.string().min(1).max(253),
});
export type TunnelService = z.infer<typeof tunnelServiceSchema>;

/** `node 4f…` / `app grafana`, for messages. */
export function describeService(service: TunnelService): string {
  return `${service.kind} ${service.name}`;
}

/**
 * The id a leaf cluster's tunnel proves (its certificate's one principal): a `/` no host name
 * has, so no agent's certificate can name it. A `cluster` service must be the leaf it proves.
 */
export const leafTunnelId = (clusterName: string) => `trusted_cluster/${clusterName}`;

/** The leaf a tunnel id names (`trusted_cluster/lab` → `lab`), or undefined for any other id. */
export const leafNameOf = (nodeId: string): string | undefined => {
  const prefix = leafTunnelId('');
  return nodeId.startsWith(prefix) ? nodeId.slice(prefix.length) : undefined;
};

/** One key per service, for maps. */
export function serviceKey(service: TunnelService): string {
  return `${service.kind}\0${service.name}`;
}

/** Close code for a peer that broke the protocol or failed to prove itself (RFC 6455 policy violation). */
export const POLICY_VIOLATION = 1008;
/** Close code when the proxy is shutting down or the agent is replaced by a newer connection. */
export const GOING_AWAY = 1001;
/** Why a draining proxy refuses a new tunnel (the agent retries at once, see 'draining'). */
export const agentTunnelDraining = 'this proxy is shutting down; connect to another proxy';

export const proxyPingIntervalMs = 20_000;
export const dialTimeoutMs = 10_000;
export const authTimeoutMs = 10_000;

/** A signing label, not the protocol version: protocol 2 signs the same message as 1 did. */
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

/** Read before the rest of the hello, so an agent of another version is told so, not "malformed". */
export const helloVersionSchema = z.object({ version: z.number().int().min(1).optional() });

export const helloSchema = z.object({
  version: z.literal(tunnelProtocolVersion),
  services: z.array(tunnelServiceSchema).max(256),
  nodeId: z.string().min(1).max(128),
  hostCertificate: z
    .string()
    .min(1)
    .max(16 * 1024),
});
export const proofSchema = z.object({ signature: base64 });
export const challengeSchema = z.object({ challenge: base64 });
const connectionId = z.string().regex(/^[0-9a-f]{32}$/);
export const dataHelloSchema = z.object({ id: connectionId });

/** What the agent may send once it is in, besides heartbeats. */
export const dialRefusedSchema = z.object({
  type: z.literal('dialRefused'),
  id: connectionId,
  message: z.string().max(512),
});

/** One proxy of the cluster, as agents are told: its id and the base URL they reach it at. */
export const proxyAddressSchema = z.object({
  id: z.string().min(1).max(128),
  addr: z.string().url().max(1024),
});
export type ProxyAddress = z.infer<typeof proxyAddressSchema>;

/** What the proxy may send once the agent is in. */
export const proxyMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('ready'),
    /** Missing from a version 1 proxy. */
    version: z.number().int().min(1).optional(),
    pingIntervalMs: z.number().int().positive().optional(),
    /** How often to heartbeat: the proxy owns the offline timeout, so it sets the pace. */
    heartbeatMs: z.number().int().min(100).optional(),
    userCaKeys: z.array(z.string()).optional(),
    /** Which proxy this is, so the agent opens no second tunnel to it from the list. */
    proxyId: z.string().min(1).max(128).optional(),
  }),
  z.object({ type: z.literal('proxies'), proxies: z.array(proxyAddressSchema).max(256) }),
  z.object({ type: z.literal('dial'), id: connectionId, service: tunnelServiceSchema }),
  z.object({
    type: z.literal('certificate'),
    hostCertificate: z
      .string()
      .min(1)
      .max(16 * 1024),
  }),
  z.object({ type: z.literal('error'), message: z.string() }),
  /** The proxy stops soon: live connections go on, the next tunnel should go elsewhere. */
  z.object({ type: z.literal('draining') }),
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
  /** The apps this agent serves (`postern agent --app name=uri`), read by the apps wing. */
  apps?: AgentAppReport[];
}

/** One app an agent serves, as its heartbeat describes it. */
export interface AgentAppReport {
  name: string;
  uri: string;
  labels: Record<string, string>;
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
