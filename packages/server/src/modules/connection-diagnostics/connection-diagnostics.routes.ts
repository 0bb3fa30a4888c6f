import {
  apiPaths,
  connectionDiagnosticRequestSchema,
  type ConnectionDiagnostic,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { parseInput } from '../../http/parse-input.js';
import type { ConnectionDiagnostics } from './connection-diagnostics.js';

type ClusterParams = { Params: { clusterId: string } };

/**
 * `POST /sites/{clusterId}/diagnostics/connections` (spec §7, reference §1.14): runs the test of
 * the resource's kind as the caller. The reference's kind is connection_diagnostic, create.
 */
export async function connectionDiagnosticsRoutes(
  app: FastifyInstance,
  options: { diagnostics: ConnectionDiagnostics; clusterName: string },
) {
  const { diagnostics, clusterName } = options;
  app.post<ClusterParams>(
    apiPaths.patterns.connectionDiagnostics,
    { config: { access: { area: 'connectionDiagnostic', verb: 'create' } } },
    async (request): Promise<ConnectionDiagnostic> => {
      resolveClusterId(request.params.clusterId, clusterName);
      const body = parseInput(connectionDiagnosticRequestSchema, request.body);
      const { user, roleSet, session } = request.identity!;
      return diagnostics.run(body, { user, roleSet, sessionRoles: session.roles });
    },
  );
}
