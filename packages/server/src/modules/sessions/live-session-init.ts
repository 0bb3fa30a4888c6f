import type { CredentialMarks } from '../../access-control/locks/lock-watcher.js';
import type { RecordSessionMode, SessionKind, TerminalSize } from '@postern/contracts';
import type { AuditStore } from '../audit/index.js';
import type { ApprovedTransfers } from './approved-transfers.js';
import type { LiveSession } from './live-session.js';
import type { Moderation } from './moderation.js';
import type { ScreenMirror } from './screen-mirror.js';
import type { SessionChannel } from './session-channel.js';
import type { RecordingPolicy } from './session-recording.js';
import type { SessionTracker, TrackedParty } from './session-tracker.store.js';

export interface LiveSessionInit {
  /** The protocol: its audit events' `proto`, and what join_sessions policies name. */
  kind: SessionKind;
  /**
   * The terminal's size for a session with a terminal (SSH, Kubernetes exec): it gets the screen
   * mirror, joins by other parties and a recording. Undefined for a session without one
   * (databases, apps, desktops): it gets the tracker, locks, TTL, idle timeout and audit only,
   * its bytes pass through as they are, and nobody but its owner's party joins it.
   */
  terminal: TerminalSize | undefined;
  /** Who started it, with what their credential carries (an MFA device, assumed requests). */
  owner: CredentialMarks & { user: string; roles: string[] };
  login: string;
  /** The resource reached (a node for SSH): locks and trackers name it. */
  node: { id: string; hostname: string; addr: string };
  clusterName: string;
  proxyId: string;
  traceId: string;
  /** '' for an interactive shell. */
  command: string;
  /**
   * Whether someone works in it on a terminal (its recording is listed as playable): a shell,
   * by default; a Kubernetes `exec -it` names its command and is interactive too.
   */
  interactive?: boolean;
  /** Epoch ms: max_session_ttl and the certificate end the session here. */
  expiresAt: number;
  /** client_idle_timeout in ms; 0 for none. */
  idleTimeoutMs: number;
  /** The stream to the program; the session owns it and closes it when it ends. */
  channel: SessionChannel;
  /** The role option record_session for the kind; best_effort when not given. */
  recordSession?: RecordSessionMode;
  /**
   * Fields every audit event of the session carries besides the common ones: a Kubernetes exec
   * names its cluster, namespace and pod (the recordings list shows the cluster).
   */
  auditFields?: Record<string, string>;
  /**
   * Judges the owner's access again (the hub calls it when roles or users change, and every
   * second): a reason ends the session, undefined lets it go on.
   */
  recheck?: () => string | undefined;
  /** The owner's require_session_join policies for the kind; absent or empty: not moderated. */
  moderation?: Moderation;
}

export interface LiveSessionDeps {
  audit: AuditStore;
  /** The screen of every session with a terminal; sessions without one leave it alone. */
  mirror: ScreenMirror;
  now: () => number;
  /** Membership or size changed: publish the tracker. */
  onChange: (session: LiveSession) => void;
  onEnd: (session: LiveSession) => void;
  /** Absent: sessions are not recorded (tests of other behaviour). */
  recordings?: RecordingPolicy;
  /** A participant's traits, which moderation filters may read (absent: none). */
  traitsOf?: (user: string) => Readonly<Record<string, readonly string[]>>;
  /** Where moderated sessions keep the file transfers they approve (absent: none are asked). */
  approvedTransfers?: ApprovedTransfers;
  /** A failure in the background (storing an approval), for the log. */
  onError?: (error: unknown) => void;
}

/** A terminal-less session's tracker says 0×0: the active-sessions shape always has a size. */
const noTerminal: TerminalSize = { w: 0, h: 0 };

/** Whether the session is someone's terminal: as the init says, or when it runs no command. */
export const isInteractive = (init: Pick<LiveSessionInit, 'command' | 'interactive'>) =>
  init.interactive ?? init.command === '';

/** The fields every audit event of the session carries. */
export function sessionAuditFields(sid: string, init: LiveSessionInit) {
  return {
    sid,
    login: init.login,
    server_id: init.node.id,
    server_hostname: init.node.hostname,
    server_addr: init.node.addr,
    // The reference names a Kubernetes session's protocol `kube`; its session kind is `k8s`.
    proto: init.kind === 'k8s' ? 'kube' : init.kind,
    namespace: 'default',
    ...(init.traceId ? { trace_id: init.traceId } : {}),
    ...init.auditFields,
  };
}

/** The session as every proxy sees it (session-tracker.store.ts). */
export function sessionTracker(
  init: LiveSessionInit,
  live: {
    moderated: boolean;
    id: string;
    created: number;
    lastInput: number;
    size: TerminalSize | undefined;
    parties: (iso: (ms: number) => string) => TrackedParty[];
  },
): SessionTracker {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    kind: init.kind,
    id: live.id,
    login: init.login,
    created: iso(live.created),
    lastActive: iso(live.lastInput),
    serverId: init.node.id,
    serverHostname: init.node.hostname,
    serverAddr: init.node.addr,
    clusterName: init.clusterName,
    owner: init.owner.user,
    ownerRoles: init.owner.roles,
    terminal: live.size ?? noTerminal,
    parties: live.parties(iso),
    moderated: live.moderated,
    command: init.command,
    proxyId: init.proxyId,
    expires: iso(init.expiresAt),
    traceId: init.traceId,
  };
}
