import {
  apiPaths,
  auditExportQuerySchema,
  auditSearchQuerySchema,
  type AuditSearchResponse,
} from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import type { SignedRequestAuth } from '../../http/resource-list-route.js';
import { resolveClusterId } from '../../cluster-context.js';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import type { AuditSearchService } from './audit-search.service.js';

interface AuditRoutesOptions {
  search: AuditSearchService;
  clusterName: string;
  /** Checks the certificate of `postern audit`'s signed calls. */
  certAuth: SignedRequestAuth;
}

type ClusterParams = { Params: { clusterId: string } };

/** Audit search (spec §7): `[from, to)`, event types, limit ≤ 5000 and an opaque, signed startKey. */
export async function auditRoutes(
  app: FastifyInstance,
  { search, clusterName, certAuth }: AuditRoutesOptions,
) {
  // `postern audit search` and `export` (docs/audit.md): the same search and the same per-event
  // rules, signed with the user's certificate instead of a web session (public for the guard:
  // the signature authenticates, and the ACL verb is checked with it).
  app.get(
    apiPaths.cliEvents,
    { config: { access: 'public' } },
    async (request): Promise<AuditSearchResponse> => {
      const { user, roleSet } = await certAuth.identifyAllowed(request, 'events', 'list');
      const query = parseInput(auditSearchQuerySchema, request.query);
      return search.events({ name: user, roleSet }, query);
    },
  );

  // `postern audit export`: the log in the order it was stored, so an event written late (a
  // proxy's batch, a spool drained after an outage) still comes after the export's position.
  app.get(
    apiPaths.cliEventsExport,
    { config: { access: 'public' } },
    async (request): Promise<AuditSearchResponse> => {
      const { user, roleSet } = await certAuth.identifyAllowed(request, 'events', 'list');
      const query = parseInput(auditExportQuerySchema, request.query);
      return search.storedEvents({ name: user, roleSet }, query);
    },
  );

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
