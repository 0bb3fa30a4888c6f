import type { ActiveSessionJson, ParticipantMode } from '@postern/contracts';
import type { SessionTracker } from './session-tracker.store.js';

/** The reference's snake_case session shape (reference §1.7), from a tracker. */
export function toActiveSessionJson(
  t: SessionTracker,
  participantModes: ParticipantMode[],
): ActiveSessionJson {
  return {
    kind: t.kind,
    id: t.id,
    namespace: 'default',
    login: t.login,
    created: t.created,
    last_active: t.lastActive,
    server_id: t.serverId,
    server_hostname: t.serverHostname,
    server_addr: t.serverAddr,
    cluster_name: t.clusterName,
    owner: t.owner,
    terminal_params: t.terminal,
    parties: t.parties.map((p) => ({
      id: p.id,
      user: p.user,
      mode: p.mode,
      server_id: t.serverId,
      last_active: p.lastActive,
      ...(p.connectionLostAt ? { connection_lost_at: p.connectionLostAt } : {}),
    })),
    participantModes,
    moderated: t.moderated,
    command: t.command,
  };
}
