import { apiPaths, auditSearchQuerySchema } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { parseInput } from '../../plugins/validate.js';
import type { AuditStore } from './index.js';

interface AuditRoutesOptions {
  audit: AuditStore;
  clusterName: string;
}

type ClusterParams = { Params: { clusterId: string } };

/** Audit search (spec §7): `[from, to)`, event types, limit ≤ 5000 and an opaque startKey. */
export async function auditRoutes(
  app: FastifyInstance,
  { audit, clusterName }: AuditRoutesOptions,
) {
  app.get<ClusterParams>(
    apiPaths.patterns.eventsSearch,
    { config: { access: { area: 'events', verb: 'list' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      const query = parseInput(auditSearchQuerySchema, request.query);
      return audit.search(query);
    },
  );

  app.get<ClusterParams>(
    apiPaths.patterns.eventsSearchSessions,
    { config: { access: { area: 'recordedSessions', verb: 'list' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      const { eventTypes: _ignored, ...query } = parseInput(auditSearchQuerySchema, request.query);
      return audit.searchSessionEvents(query);
    },
  );
}
