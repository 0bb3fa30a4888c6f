import { apiPaths, type ActiveSessionList } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { actorOf } from '../../http/request-identity.js';
import { visibleActiveSessions } from './active-sessions.service.js';
import type { SessionHub } from './session-hub.js';

interface ActiveSessionsRoutesOptions {
  hub: SessionHub;
  clusterName: string;
}

type ClusterParams = { Params: { clusterId: string } };

/** Active Sessions (spec §7 `sessions`; reference §1.7): every proxy's live sessions. */
export async function activeSessionsRoutes(
  app: FastifyInstance,
  { hub, clusterName }: ActiveSessionsRoutesOptions,
) {
  app.get<ClusterParams>(
    apiPaths.patterns.activeSessions,
    { config: { access: { area: 'activeSessions', verb: 'list' } } },
    async (request): Promise<ActiveSessionList> => {
      resolveClusterId(request.params.clusterId, clusterName);
      // actorOf refuses a request without an identity, so there is one below.
      const actor = actorOf(request);
      return visibleActiveSessions(hub, { user: actor.name, roleSet: request.identity!.roleSet });
    },
  );
}
