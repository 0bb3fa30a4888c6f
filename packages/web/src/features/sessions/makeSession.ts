import type { ActiveSessionJson, ParticipantMode, SessionKind } from '@postern/contracts';
import { formatDateTime, formatDuration, parseTimestamp } from '../../lib/format';

/** The console's model of a live session (spec §3 Active session; reference §1.7). */
export interface ActiveSession {
  kind: SessionKind;
  sid: string;
  namespace: string;
  login: string;
  created: Date | undefined;
  createdText: string;
  /** How long it has run, written like every duration in the console (lib/format). */
  durationText: string;
  serverId: string;
  /** The thing connected to: the hostname for ssh, the app's name for an app session. */
  resourceName: string;
  clusterId: string;
  parties: { user: string; mode: ParticipantMode }[];
  /** The distinct users among the parties, in the order they appear. */
  users: string[];
  /**
   * Users whose every party has lost its connection: the session waits for them to resume it
   * (docs/protocol.md §6.1).
   */
  connectionLost: string[];
  /** The server address without its port. */
  addr: string;
  /** The join modes this viewer may use. */
  participantModes: ParticipantMode[];
  moderated: boolean;
  owner: string;
  command: string;
}

export function makeSession(json: ActiveSessionJson, now: number = Date.now()): ActiveSession {
  const created = parseTimestamp(json.created);
  return {
    kind: json.kind,
    sid: json.id,
    namespace: json.namespace,
    login: json.login,
    created,
    createdText: created ? formatDateTime(created) : '',
    durationText: created ? formatDuration(now - created.getTime()) : '',
    serverId: json.server_id,
    // The server writes each kind's resource name here (an app session: the app's name).
    resourceName: json.server_hostname,
    clusterId: json.cluster_name,
    parties: json.parties.map((p) => ({ user: p.user, mode: p.mode })),
    users: [...new Set(json.parties.map((p) => p.user))],
    connectionLost: usersAllLost(json.parties),
    addr: stripPort(json.server_addr),
    participantModes: json.participantModes,
    moderated: json.moderated,
    owner: json.owner,
    command: json.command,
  };
}

function usersAllLost(parties: ActiveSessionJson['parties']): string[] {
  const connected = new Set(parties.filter((p) => !p.connection_lost_at).map((p) => p.user));
  return [...new Set(parties.map((p) => p.user))].filter((user) => !connected.has(user));
}

/** Newest first. */
export function makeSessions(list: ActiveSessionJson[], now: number = Date.now()): ActiveSession[] {
  return list
    .map((json) => makeSession(json, now))
    .sort((a, b) => (b.created?.getTime() ?? 0) - (a.created?.getTime() ?? 0));
}

/** '10.0.0.1:22' → '10.0.0.1', '[::1]:22' → '::1'; an address without a port stays as it is. */
export function stripPort(addr: string): string {
  const bracketed = /^\[(.*)\](?::\d+)?$/.exec(addr);
  if (bracketed) return bracketed[1]!;
  const colons = addr.split(':').length - 1;
  return colons === 1 ? addr.slice(0, addr.lastIndexOf(':')) : addr;
}
