import { participantModes, type ParticipantMode, type SessionKind } from '@postern/contracts';
import type { RoleSet } from '../../access-control/rbac/index.js';
import { matchesAny } from '../../access-control/rbac/labels.js';

export interface JoinableSession {
  kind: SessionKind;
  owner: string;
  ownerRoles: readonly string[];
}

/** Kinds with a shared screen to join; an app or database session is one client's own. */
const joinableKinds: ReadonlySet<SessionKind> = new Set(['ssh', 'k8s']);

/**
 * The modes in which a viewer may join a session (reference §2.5). The owner may always come
 * back as a peer; anyone else needs a `join_sessions` policy whose `roles` match one of the
 * owner's roles and whose `kinds` include the session's kind.
 */
export function participantModesFor(
  viewer: { user: string; roleSet: RoleSet },
  session: JoinableSession,
): ParticipantMode[] {
  if (!joinableKinds.has(session.kind)) return [];
  // The owner comes back as a peer only: nobody moderates (or watches as a moderator would
  // count) their own session.
  if (viewer.user === session.owner) return ['peer'];
  const modes = new Set<ParticipantMode>();
  for (const policy of viewer.roleSet.joinSessionPolicies()) {
    const kindMatches = policy.kinds.some((k) => k === session.kind || (k as string) === '*');
    const roleMatches = session.ownerRoles.some((role) => matchesAny(policy.roles, role));
    if (kindMatches && roleMatches) for (const mode of policy.modes) modes.add(mode);
  }
  return participantModes.filter((mode) => modes.has(mode));
}

/** The mode a join gets when it names none: the owner comes back as a peer, others observe. */
export function defaultJoinMode(user: string, owner: string): ParticipantMode {
  return user === owner ? 'peer' : 'observer';
}
