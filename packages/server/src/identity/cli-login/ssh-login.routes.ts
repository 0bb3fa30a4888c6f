import {
  apiPaths,
  nodeListQuerySchema,
  sshCertsRequestSchema,
  type NodeListResponse,
  type SshCertsResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { accessDenied } from '../../errors.js';
import { parseInput } from '../../plugins/validate.js';
import { requestContext } from '../auth/session-cookie.js';
import type { InventoryService } from '../../wings/servers/nodes/inventory.service.js';
import { nodeJson } from '../../wings/servers/nodes/nodes.routes.js';
import type { CertRequestAuth } from './cert-request-auth.js';
import type { SshCertsService } from './ssh-certs.service.js';

export interface SshLoginRoutesOptions {
  certs: SshCertsService;
  certAuth: CertRequestAuth;
  inventory: InventoryService;
  clusterName: string;
  loginRateLimit: { max: number; timeWindow: number };
}

/** The CLI's calls (docs/cli-login.md): a certificate for a password, and the nodes list. */
export async function sshLoginRoutes(app: FastifyInstance, options: SshLoginRoutesOptions) {
  const { certs, certAuth, inventory, clusterName } = options;

  // No CSRF check: the CLI has no cookie, and nothing here acts on a browser's ambient session.
  app.post(
    apiPaths.sshCerts,
    { config: { access: 'public', rateLimit: options.loginRateLimit } },
    async (request): Promise<SshCertsResponse> => {
      const body = parseInput(sshCertsRequestSchema, request.body);
      return certs.login(body, requestContext(request));
    },
  );

  // Public for the guard: the request is authenticated by its certificate signature instead.
  app.get(apiPaths.sshNodes, { config: { access: 'public' } }, async (request) => {
    const { acl, roleSet } = certAuth.identify(request);
    if (!acl.nodes.list) throw accessDenied('access denied: list on nodes is not allowed');
    const query = parseInput(nodeListQuerySchema, request.query);
    const page = inventory.list(query, roleSet);
    return {
      ...page,
      items: page.items.map((row) => nodeJson(row, clusterName)),
    } satisfies NodeListResponse;
  });
}
