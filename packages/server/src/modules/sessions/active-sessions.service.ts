import type { ActiveSessionList } from '@postern/contracts';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { may } from '../../access-control/access/actor.js';
import { participantModesFor } from './join-policy.js';
import type { SessionHub } from './session-hub.js';
import { toActiveSessionJson } from './session-json.js';
import type { SessionTracker } from './session-tracker.store.js';

/** What `where` clauses see: `session_tracker.participants` as the reference's rules write it. */
const asRuleResource = (tracker: SessionTracker) => ({
  ...tracker,
  participants: [...new Set([tracker.owner, ...tracker.parties.map((p) => p.user)])],
});

/**
 * The live sessions of every proxy that this viewer may see, newest first, each with the modes
 * the viewer may join it in.
 */
export function visibleActiveSessions(
  hub: SessionHub,
  viewer: { user: string; roleSet: RoleSet },
): ActiveSessionList {
  const actor = { name: viewer.user, roleSet: viewer.roleSet };
  const sessions = hub
    .list()
    .map((tracker) => ({ tracker, modes: participantModesFor(viewer, tracker) }))
    // A session shows to its owner and parties, to whoever may join it, and to those whose
    // rules let them read session trackers (auditors); nobody else learns it exists.
    .filter(
      ({ tracker, modes }) =>
        modes.length > 0 ||
        tracker.parties.some((p) => p.user === viewer.user) ||
        may(actor, 'session_tracker', 'read', asRuleResource(tracker)),
    )
    .sort((a, b) => b.tracker.created.localeCompare(a.tracker.created))
    .map(({ tracker, modes }) => toActiveSessionJson(tracker, modes));
  return { sessions };
}
