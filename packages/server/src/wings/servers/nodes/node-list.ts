import type { NodeSortField } from '@postern/contracts';
import type { ResourceRow } from '../../../modules/inventory/resource-inventory.js';
import type { Labelled } from '../../../access-control/rbac/index.js';
import type { NodeResource } from './nodes.store.js';

/** A node as a listing sees it: its record, whether it is up, and all its labels. */
export interface NodeRow {
  node: NodeResource;
  status: 'online' | 'offline';
  /** RFC 3339: last heartbeat, or for agentless hosts the last answer to the proxy's check; '' if never. */
  lastHeartbeat: string;
  /** Static and command labels together: what search, `query` and RBAC match against. */
  labels: Record<string, string>;
}

/** What may see a node and as whom: a RoleSet fits; null is the host's administrator (all, no logins). */
export interface NodeAccess {
  canAccess(kind: 'node', resource: Labelled): boolean;
  loginsFor(node: Labelled): string[];
}

export interface NodeListRow extends NodeRow {
  /** The caller's logins on this node. */
  logins: string[];
}

export interface NodePage {
  items: NodeListRow[];
  startKey: string;
  totalCount: number;
}

export interface ListCriteria {
  search: string;
  query: string;
  sort?: { field: NodeSortField; dir: 'asc' | 'desc' };
  startKey: string;
  limit: number;
}

/** Static labels plus command labels' results; a command label wins a name clash (it is live). */
export function allLabels(node: NodeResource): Record<string, string> {
  const labels = { ...node.metadata.labels };
  for (const [name, label] of Object.entries(node.spec.cmdLabels)) labels[name] = label.result;
  return labels;
}

/** The generic inventory's row in the node list's shape (`node`, as the API and CLI read it). */
export const toNodeRow = ({ resource, ...row }: ResourceRow<NodeResource>): NodeRow => ({
  node: resource,
  ...row,
});
