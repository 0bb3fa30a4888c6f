import { apiPaths, type ActiveSessionList } from '@postern/contracts';
import type { FastifyInstance } from 'fastify';
import { resolveClusterId } from '../../cluster-context.js';
import { actorOf } from '../../plugins/access-guard.js';
import { may } from '../access/actor.js';
import { participantModesFor } from './join-policy.js';
import type { SessionHub } from './session-hub.js';
import { toActiveSessionJson } from './session-json.js';
import type { SessionTracker } from './session-tracker.store.js';

/** What `where` clauses see: `session_tracker.participants` as the reference's rules write it. */
const asRuleResource = (tracker: SessionTracker) => ({
  ...tracker,
  participants: [...new Set([tracker.owner, ...tracker.parties.map((p) => p.user)])],
});

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
      const actor = actorOf(request);
      const viewer = { user: actor.name, roleSet: request.identity!.roleSet };
      const sessions = hub
        .list()
        .map((tracker) => ({ tracker, modes: participantModesFor(viewer, tracker) }))
        // A session shows to its owner and parties, to whoever may join it, and to those whose
        // rules let them read session trackers (auditors); nobody else learns it exists.
        .filter(
          ({ tracker, modes }) =>
            modes.length > 0 ||
            tracker.parties.some((p) => p.user === actor.name) ||
            may(actor, 'session_tracker', 'read', asRuleResource(tracker)),
        )
        .sort((a, b) => b.tracker.created.localeCompare(a.tracker.created))
        .map(({ tracker, modes }) => toActiveSessionJson(tracker, modes));
      return { sessions };
    },
  );
}
