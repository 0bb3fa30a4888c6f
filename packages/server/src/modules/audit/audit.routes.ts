import { apiPaths, auditSearchQuerySchema } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { actorOf } from '../../plugins/access-guard.js';
import { parseInput } from '../../plugins/validate.js';
import { visible } from '../access/actor.js';
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
      const page = await audit.search(query);
      return { ...page, events: visible(actorOf(request), 'event', page.events) };
    },
  );

  app.get<ClusterParams>(
    apiPaths.patterns.eventsSearchSessions,
    { config: { access: { area: 'recordedSessions', verb: 'list' } } },
    async (request) => {
      resolveClusterId(request.params.clusterId, clusterName);
      const { eventTypes: _ignored, ...query } = parseInput(auditSearchQuerySchema, request.query);
      const page = await audit.searchSessionEvents(query);
      // Each recording is checked itself: the preset access role sees only sessions it took part
      // in (`contains(session.participants, user.metadata.name)`). A page may come back short;
      // its startKey still leads on.
      return { ...page, events: visible(actorOf(request), 'session', page.events) };
    },
  );
}
