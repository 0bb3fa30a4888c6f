import { apiPaths, auditSearchQuerySchema } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { actorOf } from '../../http/request-identity.js';
import { parseInput } from '../../http/parse-input.js';
import { may } from '../../access-control/access/actor.js';
import type { AuditStore } from './index.js';
import { visiblePage } from './visible-page.js';

interface AuditRoutesOptions {
  /** The store with signed cursors (`SignedCursorAuditStore`): callers get only cursors we made. */
  audit: AuditStore;
  clusterName: string;
}

type ClusterParams = { Params: { clusterId: string } };

/**
 * Audit search (spec §7): `[from, to)`, event types, limit ≤ 5000 and an opaque, signed startKey.
 * Both lists apply the caller's rules BEFORE paging (`visiblePage`): every page is full while
 * visible events remain, and nothing tells how many were hidden.
 */
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
      const actor = actorOf(request);
      return visiblePage(
        query,
        (q) => audit.search(q),
        (event) => may(actor, 'event', 'read', event),
      );
    },
  );

  app.get<ClusterParams>(
    apiPaths.patterns.eventsSearchSessions,
    { config: { access: { area: 'recordedSessions', verb: 'list' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      const { eventTypes: _ignored, ...query } = parseInput(auditSearchQuerySchema, request.query);
      const actor = actorOf(request);
      // Each recording is checked itself: the preset access role sees only sessions it took part
      // in (`contains(session.participants, user.metadata.name)`).
      return visiblePage(
        query,
        (q) => audit.searchSessionEvents(q),
        (event) => may(actor, 'session', 'read', event),
      );
    },
  );
}
