import {
  apiPaths,
  nodeListQuerySchema,
  type NodeJson,
  type NodeListResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../../cluster-context.js';
import { actorOf } from '../../../http/request-identity.js';
import { parseInput } from '../../../http/parse-input.js';
import { listViewer, type SearchAs } from '../../../http/list-viewer.js';
import type { InventoryService } from './inventory.service.js';
import type { NodeListRow } from './node-list.js';

interface NodesRoutesOptions {
  inventory: InventoryService;
  clusterName: string;
  /** `searchAsRoles=yes`: the roles a resource access request may use (audited). */
  searchAs: SearchAs;
}

type ClusterParams = { Params: { clusterId: string } };

/** Servers (spec §7 `sites/{clusterId}/nodes`; reference §1.5): filtered by RBAC, then paged. */
export async function nodesRoutes(
  app: FastifyInstance,
  { inventory, clusterName, searchAs }: NodesRoutesOptions,
) {
  app.get<ClusterParams>(
    apiPaths.patterns.nodes,
    { config: { access: { area: 'nodes', verb: 'list' } } },
    async (request): Promise<NodeListResponse> => {
      const siteId = resolveClusterId(request.params.clusterId, clusterName);
      const query = parseInput(nodeListQuerySchema, request.query);
      const viewer = await listViewer(actorOf(request), query.searchAsRoles, searchAs, 'node');
      const page = inventory.list(query, viewer);
      return { ...page, items: page.items.map((row) => nodeJson(row, siteId)) };
    },
  );
}

/** A node as the Servers screen lists it. */
export function nodeJson(row: NodeListRow, siteId: string): NodeJson {
  const { node } = row;
  return {
    id: node.metadata.name,
    siteId,
    hostname: node.spec.hostname,
    addr: node.spec.addr,
    tunnel: node.spec.tunnel,
    subKind: node.spec.subKind,
    tags: Object.entries(row.labels)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => ({ name, value })),
    sshLogins: row.logins,
    status: row.status,
    lastHeartbeat: row.lastHeartbeat,
    os: node.spec.os,
  };
}
