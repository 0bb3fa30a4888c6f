import { labelNamePattern, nodeSubKinds, type NodeSubKind } from '@postern/contracts';
import { z } from 'zod';
import { normalizeHostKey } from './host-key.js';
import { isNodeId, type NodeResource } from './nodes.store.js';

export const labelsSchema = z
  .record(z.string().regex(labelNamePattern, 'invalid label name'), z.string().max(256))
  .refine((labels) => Object.keys(labels).length <= 64, 'at most 64 labels');

export const hostnameSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'expected a host name');

/** host:port, an IPv6 host in brackets. */
export const hostPortSchema = z
  .string()
  .max(260)
  .regex(/^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9._-]*):\d{1,5}$/, 'expected HOST:PORT')
  .refine((addr) => Number(addr.slice(addr.lastIndexOf(':') + 1)) <= 65535, 'port too large');

/** The host part of host:port, without IPv6 brackets. */
export const hostOf = (addr: string) =>
  addr.slice(0, addr.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1');

const commandLabelSchema = z.object({
  command: z.array(z.string().max(1024)).min(1).max(64),
  period: z.string().max(32),
  result: z.string().max(4096),
});

/**
 * What a node service reports on each heartbeat: the in-process one of `postern start`, or an
 * agent over its tunnel. Exported so the tunnel parses agents' messages with the same rules.
 */
export const nodeHeartbeatSchema = z.object({
  id: z.string().refine(isNodeId, 'expected a lower-case UUID'),
  hostname: hostnameSchema,
  /** host:port for nodes the proxy dials; ignored for tunnel nodes. */
  addr: z.union([z.literal(''), hostPortSchema]),
  subKind: z.enum(nodeSubKinds),
  tunnel: z.boolean(),
  os: z.string().max(64),
  labels: labelsSchema,
  cmdLabels: z
    .record(z.string().regex(labelNamePattern, 'invalid label name'), commandLabelSchema)
    .refine((labels) => Object.keys(labels).length <= 32, 'at most 32 command labels'),
  hostPublicKey: z.string().max(16 * 1024),
});
export type NodeHeartbeat = z.input<typeof nodeHeartbeatSchema>;
type ParsedHeartbeat = z.output<typeof nodeHeartbeatSchema>;

export const newOpenSshNodeSchema = z.object({
  name: hostnameSchema,
  addr: hostPortSchema,
  labels: labelsSchema.default({}),
});
export type NewOpenSshNode = z.input<typeof newOpenSshNodeSchema>;

/** A node that joined with a token (see join-tokens/agent-join.service.ts). */
export interface Enrollment {
  hostname: string;
  /** host:port for agentless hosts; ignored for tunnel nodes. */
  addr: string;
  subKind: NodeSubKind;
  os: string;
  /** Every static label, join labels included. */
  labels: Record<string, string>;
  /** The labels the token gave, kept over what the agent reports later. */
  joinLabels: Record<string, string>;
  /** Normalised OpenSSH line the proxy signed a host certificate for. */
  hostPublicKey: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The record a heartbeat leaves: what the node reports, plus what the proxy decided before (the
 * labels its join token gave, how its host key came to be trusted). A key the node reports over
 * its authenticated channel is 'reported' unless it is the key already trusted another way.
 */
export function recordFromHeartbeat(
  h: ParsedHeartbeat,
  current: NodeResource | null,
  now: number,
  recordTtlMs: number,
): NodeResource {
  const hostPublicKey = h.hostPublicKey
    ? normalizeHostKey(h.hostPublicKey)
    : (current?.spec.hostPublicKey ?? '');
  const hostKeySource =
    hostPublicKey === ''
      ? ''
      : current?.spec.hostPublicKey === hostPublicKey
        ? current.spec.hostKeySource
        : 'reported';
  const joinLabels = current?.spec.joinLabels;
  return {
    kind: 'node',
    version: 'v2',
    metadata: {
      name: h.id,
      labels: { ...h.labels, ...joinLabels },
      expires: iso(now + recordTtlMs),
    },
    spec: {
      hostname: h.hostname,
      addr: h.tunnel ? '' : h.addr,
      subKind: h.subKind,
      tunnel: h.tunnel,
      os: h.os,
      cmdLabels: h.cmdLabels,
      hostPublicKey,
      hostKeySource,
      ...(joinLabels ? { joinLabels } : {}),
      lastHeartbeat: iso(now),
    },
  };
}

/**
 * Whether a heartbeat must rewrite the record: when anything but its times changed, or when the
 * record was last written `refreshMs` ago (which also pushes its expiry on). Otherwise only the
 * short heartbeat marker is written, so a steady fleet costs one small write per heartbeat.
 */
export function needsRewrite(
  current: NodeResource,
  next: NodeResource,
  now: number,
  refreshMs: number,
): boolean {
  const written = Date.parse(current.spec.lastHeartbeat ?? '');
  if (!Number.isFinite(written) || written + refreshMs <= now) return true;
  return canonical(withoutTimes(current)) !== canonical(withoutTimes(next));
}

function withoutTimes(node: NodeResource) {
  const { expires: _expires, ...metadata } = node.metadata;
  const { lastHeartbeat: _last, ...spec } = node.spec;
  return { metadata, spec };
}

/** JSON with object keys sorted, so equal content compares equal whatever order it came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : inner,
  );
}
