import {
  apiPaths,
  nodeListQuerySchema,
  type NodeJson,
  type NodeListResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { ListContext } from '../../../http/resource-listers.js';
import { resourceListRoute } from '../../../http/resource-list-route.js';
import type { InventoryService } from './inventory.service.js';
import type { NodeListRow } from './node-list.js';

interface NodesRoutesOptions extends ListContext {
  inventory: InventoryService;
}

/** Servers (spec §7 `sites/{clusterId}/nodes`; reference §1.5): filtered by RBAC, then paged. */
export async function nodesRoutes(app: FastifyInstance, options: NodesRoutesOptions) {
  const { inventory } = options;
  resourceListRoute(app, options, {
    path: apiPaths.patterns.nodes,
    signedPath: apiPaths.sshNodes,
    area: 'nodes',
    resourceType: 'node',
    query: nodeListQuerySchema,
    list: (query, viewer) => {
      // The inventory pages nodes with their logins worked out, as `items`.
      const { items, startKey, totalCount } = inventory.list(query, viewer);
      return { rows: items, startKey, totalCount };
    },
    json: (row, _viewer, clusterId): NodeListResponse['items'][number] => nodeJson(row, clusterId),
  });
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
