import { apiPaths, nodeListQuerySchema, type NodeListResponse } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { listViewer, type SearchAs } from '../../../http/list-viewer.js';
import { parseInput } from '../../../http/parse-input.js';
import type { CertRequestAuth } from '../../../identity/cli-login/cert-request-auth.js';
import type { InventoryService } from './inventory.service.js';
import { nodeJson } from './nodes.routes.js';

export interface SshNodesRoutesOptions {
  certAuth: Pick<CertRequestAuth, 'identify' | 'identifyAllowed'>;
  inventory: InventoryService;
  clusterName: string;
  /** `searchAsRoles=yes` (`postern request search`): the roles a resource request may use. */
  searchAs: SearchAs;
}

/** The CLI's nodes list (`postern ls`), signed with the user's certificate (docs/cli-login.md). */
export async function sshNodesRoutes(app: FastifyInstance, options: SshNodesRoutesOptions) {
  const { certAuth, inventory, clusterName, searchAs } = options;

  // Public for the guard: the request is authenticated by its certificate signature instead.
  app.get(apiPaths.sshNodes, { config: { access: 'public' } }, async (request) => {
    const { user, roleSet } = await certAuth.identifyAllowed(request, 'nodes', 'list');
    const query = parseInput(nodeListQuerySchema, request.query);
    const viewer = { name: user, roleSet };
    const page = inventory.list(
      query,
      await listViewer(viewer, query.searchAsRoles, searchAs, 'node'),
    );
    return {
      ...page,
      items: page.items.map((row) => nodeJson(row, clusterName)),
    } satisfies NodeListResponse;
  });
}
