import { z } from 'zod';
import {
  resourceListQuerySchema,
  resourceListResponseSchema,
  resourcePageSize,
} from './resource-list.js';

/**
 * Servers (spec §3 Node; reference §1.5). The JSON keeps the reference's field names
 * (`siteId`, `tags`) so its clients keep working; the console maps them to its model.
 */
export const nodeLabelSchema = z.object({ name: z.string(), value: z.string() });
export type NodeLabel = z.infer<typeof nodeLabelSchema>;

/** How the proxy reaches a node. */
export const nodeSubKinds = [
  /** Postern's own node service: in `postern start`, or `postern agent` behind a tunnel. */
  'postern',
  /** An agentless OpenSSH host that trusts the cluster user CA. */
  'openssh',
] as const;
export type NodeSubKind = (typeof nodeSubKinds)[number];

export const nodeJsonSchema = z.object({
  /** The node's UUID. */
  id: z.string(),
  siteId: z.string(),
  hostname: z.string(),
  /** host:port the proxy dials; '' for tunnel nodes. */
  addr: z.string(),
  /** Reached through the agent's reverse tunnel. */
  tunnel: z.boolean(),
  subKind: z.enum(nodeSubKinds),
  /** Static and command labels, sorted by name. */
  tags: z.array(nodeLabelSchema),
  /** Logins this user may use on this node, from RBAC. */
  sshLogins: z.array(z.string()),
  /** 'online' while heartbeats arrive; agentless hosts are always 'online' (no heartbeat). */
  status: z.enum(['online', 'offline']),
  /** RFC 3339: the last heartbeat, '' for agentless hosts. */
  lastHeartbeat: z.string(),
  os: z.string(),
});
export type NodeJson = z.infer<typeof nodeJsonSchema>;

/** Fields a node list may sort by. */
export const nodeSortFields = ['hostname', 'addr', 'status'] as const;
export type NodeSortField = (typeof nodeSortFields)[number];

/** The order of a node list that names no sort; the console marks it on the Hostname column. */
export const defaultNodeSort: { field: NodeSortField; dir: 'asc' | 'desc' } = {
  field: 'hostname',
  dir: 'asc',
};

/** The Servers page's page size (every resource list's). */
export const nodesPageSize = resourcePageSize;

/** Label names as the reference allows them; values are free text, bounded. */
export const labelNamePattern = /^[A-Za-z0-9/._:*-]{1,128}$/;

/** `GET /sites/{clusterId}/nodes` query: searched by hostname, address and labels. */
export const nodeListQuerySchema = resourceListQuerySchema(nodeSortFields);
export type NodeListQuery = z.input<typeof nodeListQuerySchema>;

export const nodeListResponseSchema = resourceListResponseSchema(nodeJsonSchema);
export type NodeListResponse = z.infer<typeof nodeListResponseSchema>;

/** One `labels["k"] == "v"` clause, the form a clicked label chip adds to `query`. */
export function labelClause(name: string, value: string): string {
  return `labels[${JSON.stringify(name)}] == ${JSON.stringify(value)}`;
}

/**
 * Parses `query` into label equalities. Only `labels["k"] == "v"` clauses joined by `&&` are
 * understood; anything else is an error rather than a silently ignored filter.
 */
export function parseLabelQuery(query: string): NodeLabel[] | Error {
  const text = query.trim();
  if (!text) return [];
  const clause = /^labels\[("(?:[^"\\]|\\.)*")\]\s*==\s*("(?:[^"\\]|\\.)*")$/;
  const labels: NodeLabel[] = [];
  for (const part of text.split('&&')) {
    const match = clause.exec(part.trim());
    if (!match) return new Error(`query: expected labels["name"] == "value" clauses joined by &&`);
    try {
      labels.push({
        name: JSON.parse(match[1]!) as string,
        value: JSON.parse(match[2]!) as string,
      });
    } catch {
      return new Error('query: bad string literal');
    }
  }
  return labels;
}
