import { apiPaths, auditSearchQuerySchema } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import type { AuditSearchService } from './audit-search.service.js';

interface AuditRoutesOptions {
  search: AuditSearchService;
  clusterName: string;
}

type ClusterParams = { Params: { clusterId: string } };

/** Audit search (spec §7): `[from, to)`, event types, limit ≤ 5000 and an opaque, signed startKey. */
export async function auditRoutes(
  app: FastifyInstance,
  { search, clusterName }: AuditRoutesOptions,
) {
  app.get<ClusterParams>(
    apiPaths.patterns.eventsSearch,
    { config: { access: { area: 'events', verb: 'list' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      const query = parseInput(auditSearchQuerySchema, request.query);
      return search.events(actorOf(request), query);
    },
  );

  app.get<ClusterParams>(
    apiPaths.patterns.eventsSearchSessions,
    { config: { access: { area: 'recordedSessions', verb: 'list' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      const query = parseInput(auditSearchQuerySchema, request.query);
      return search.sessions(actorOf(request), query);
    },
  );
}
