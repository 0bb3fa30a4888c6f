import { sessionMfaRefusal } from '../../../identity/mfa/session-mfa.js';
import type { ParticipantMode, TerminalSize } from '@postern/contracts';
import type { Client, ClientChannel } from 'ssh2';
import { accessDenied, ApiError, notFound } from '../../../errors.js';
import type { Identity } from '../../../http/request-identity.js';
import { openExec, openShell } from '../../../ssh/client.js';
import { cappedIncomingWindow } from '../../../ssh/incoming-window.js';
import { SshSessionChannel } from '../../../ssh/ssh-session-channel.js';
import { emitAudit, emitAuditInBackground } from '../../../modules/audit/emit.js';
import type { AuditStore } from '../../../modules/audit/index.js';
import {
  lockMessage,
  marksOf,
  type CredentialMarks,
  type LockWatcher,
} from '../../../access-control/locks/lock-watcher.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import { defaultJoinMode, participantModesFor } from '../../../modules/sessions/join-policy.js';
import type { LiveSession } from '../../../modules/sessions/live-session.js';
import { Moderation } from '../../../modules/sessions/moderation.js';
import type { Party } from '../../../modules/sessions/party.js';
import type { PeerProofs } from '../../../modules/sessions/peer-proof.js';
import { RemoteSession, type JoinedSession } from '../../../modules/sessions/remote-session.js';
import type { AccessResolver } from '../../../access-control/access/access-resolver.js';
import type { SessionHub } from '../../../modules/sessions/session-hub.js';
import {
  dialFailure,
  requesterOf,
  type ForwardedAgent,
  type NodeAccess,
  type Requester,
} from './node-access.js';
import type { DialableNode } from './node-dialer.js';

export type { ForwardedAgent, NodeDirectory, Requester } from './node-access.js';

/**
 * What the proxy may hold of a session's output from the node (granted and unread). With the
 * 512 KiB a browser may leave unacknowledged, a paused session costs at most about 1 MiB.
 */
const heldOutputLimit = 384 * 1024;
export { requesterOf } from './node-access.js';

/**
 * Refuses what a moderated user would otherwise do unwatched: a command without a terminal, a
 * file copy, sftp. Only a terminal session can wait for its moderators and be seen by them.
 */
export function assertUnmoderated(requester: Pick<Requester, 'user' | 'roleSet'>, what: string) {
  const moderation = Moderation.of(requester, 'ssh');
  if (moderation.required) {
    throw accessDenied(
      `${what} is not allowed: your sessions need ${moderation.describe()}; open a terminal session instead`,
    );
  }
}

export interface TerminalServiceDeps {
  hub: SessionHub;
  access: NodeAccess;
  /** The current users and roles, to judge joined parties again (absent: they are not). */
  subjects?: Pick<AccessResolver, 'current'>;
  locks: LockWatcher;
  audit: AuditStore;
  clusterName: string;
  now: () => number;
  /** Proofs for joining a session another proxy holds (absent: such joins are refused). */
  peers?: PeerProofs;
  /** How often a join through another proxy pings it (the server's WebSocket ping interval). */
  pingIntervalMs?: number;
}

export interface ReachRequest {
  serverId: string;
  login: string;
  traceId: string;
  remoteAddr: string;
}

export interface StartRequest extends ReachRequest {
  size: TerminalSize;
  /** '' for a login shell. */
  command: string;
}

/** A server the requester may reach as the login, and on what terms. */
export interface Reach {
  node: DialableNode;
  login: string;
  ttlMs: number;
  options: ReturnType<RoleSet['options']>;
}

/**
 * The rules of opening a terminal: who may reach which server as which login (NodeAccess), for
 * how long, and joining; for the browser and for SSH clients through the SSH proxy alike.
 * Every refusal is audited as a rejected session.
 */
export class TerminalService {
  constructor(private readonly deps: TerminalServiceDeps) {}

  /**
   * Whether the requester may reach the server as the login now, and for how long. A refusal is
   * audited (T1006W) and thrown as the error to show.
   */
  async authorize(requester: Requester, request: ReachRequest): Promise<Reach> {
    const verdict = this.deps.access.check(requester, request.serverId, request.login);
    if (!verdict.ok) throw await this.rejected(requester, request, verdict.node, verdict.error);
    return {
      node: verdict.node,
      login: request.login,
      ttlMs: this.deps.access.ttlMs(requester),
      options: requester.roleSet.options(),
    };
  }

  /** An SSH connection to the server as the login, with a certificate for this reach only. */
  async dial(
    requester: Requester,
    reach: Reach,
    request: ReachRequest,
    agent?: ForwardedAgent,
  ): Promise<Client> {
    try {
      return (await this.deps.access.connect(requester, reach.node, reach.login, agent)).client;
    } catch (error) {
      const failure =
        error instanceof ApiError ? error : new ApiError('connection_problem', String(error));
      throw await this.rejected(requester, request, reach.node, failure);
    }
  }

  /** A terminal session in the hub: recorded, listed in Active Sessions, joinable. */
  async start(
    requester: Requester,
    request: StartRequest,
    agent?: ForwardedAgent,
  ): Promise<LiveSession> {
    const reach = await this.authorize(requester, request);
    if (reach.options.recordSession.ssh === 'strict') {
      const problem = await this.deps.hub.recordingProblem();
      if (problem) {
        const why = `this session must be recorded (record_session: strict), but ${problem}`;
        throw await this.rejected(requester, request, reach.node, accessDenied(why));
      }
    }
    const client = await this.dial(requester, reach, request, agent);
    const { node, ttlMs, options } = reach;
    let channel: ClientChannel;
    const window = cappedIncomingWindow(client, heldOutputLimit);
    try {
      window.before();
      const pty = { cols: request.size.w, rows: request.size.h, term: 'xterm-256color' };
      channel = request.command
        ? await openExec(client, request.command, { pty })
        : await openShell(client, pty);
    } catch (error) {
      client.end();
      const failure = new ApiError('connection_problem', dialFailure(node, error));
      throw await this.rejected(requester, request, node, failure);
    }
    const session = this.deps.hub.create({
      kind: 'ssh',
      terminal: request.size,
      owner: { user: requester.user, roles: requester.roles, ...marksOf(requester) },
      login: request.login,
      node: { id: node.id, hostname: node.hostname, addr: node.addr },
      clusterName: this.deps.clusterName,
      proxyId: this.deps.hub.proxyId,
      traceId: request.traceId,
      command: request.command,
      expiresAt: this.deps.now() + ttlMs,
      idleTimeoutMs: options.clientIdleTimeoutMs,
      recordSession: options.recordSession.ssh,
      channel: new SshSessionChannel(client, channel),
      recheck: () => this.deps.access.recheck(requester, node, request.login),
      moderation: Moderation.of(requester, 'ssh'),
    });
    // After the session's own readers are attached (same tick: no output can slip past them).
    window.after(channel);
    return session;
  }

  /**
   * Keeps something live that uses this reach (an SSH connection through the proxy, a file
   * transfer) under the hub's access re-checks: `revoke` ends it with the reason once the
   * requester may no longer use the login on the server, or a lock covers it. Call the result
   * when it is over.
   */
  guard(requester: Requester, reach: Reach, revoke: (reason: string) => void): () => void {
    const { access } = this.deps;
    return this.deps.hub.guard({
      recheck: () =>
        access.lockedReason(requester, reach.node, reach.login) ??
        access.recheck(requester, reach.node, reach.login),
      revoke,
    });
  }

  /**
   * Keeps a joined party under the re-checks: it leaves the session, told why, once its user
   * may no longer join in its mode (roles changed) or its credentials were revoked.
   */
  guardParty(identity: Identity, session: JoinedSession, party: Party): () => void {
    return this.guardJoined(requesterOf(identity), session, party);
  }

  /** guardParty for any joiner: a web session's, or an SSH client's certificate holder. */
  guardJoined(requester: Requester, session: JoinedSession, party: Party): () => void {
    const subject = requester.subject;
    const subjects = this.deps.subjects;
    if (!subject || !subjects) return () => undefined;
    const stop = this.deps.hub.guard({
      recheck: () => {
        if (session.isEnded) return undefined;
        const current = subjects.current(subject);
        if (!current.ok) return current.reason;
        const viewer = { user: requester.user, roleSet: current.roleSet };
        const modes = participantModesFor(viewer, session.toTracker());
        if (!modes.includes(party.mode)) return `your right to join this session was removed`;
        return undefined;
      },
      revoke: (reason) => {
        stop();
        session.leave(party.id, reason, 'revoked');
      },
    });
    return stop;
  }

  /**
   * The live session to join and the mode granted, or an error the joiner can read. A session
   * another proxy holds is joined through that proxy (RemoteSession), judged here first.
   */
  joinable(
    identity: Pick<Requester, 'user' | 'roles' | 'roleSet' | 'mfaVerified'> & CredentialMarks,
    sid: string,
    mode?: ParticipantMode,
  ): { session: JoinedSession; mode: ParticipantMode } {
    const tracker = this.deps.hub.tracker(sid);
    const session = this.deps.hub.get(sid);
    const viewer = { user: identity.user, roleSet: identity.roleSet };
    const modes = tracker ? participantModesFor(viewer, tracker) : [];
    if (!tracker || modes.length === 0) throw notFound(`session ${sid} is not found`);
    const unchecked = sessionMfaRefusal(identity, 'this client');
    if (unchecked) throw accessDenied(unchecked);
    const granted = mode ?? defaultJoinMode(identity.user, tracker.owner);
    if (!modes.includes(granted)) {
      const reason = `you may join this session as ${modes.join(' or ')}`;
      emitAuditInBackground(this.deps.audit, 'T1006W', {
        user: identity.user,
        sid,
        mode: granted,
        login: tracker.login,
        server_id: tracker.serverId,
        reason,
      });
      throw accessDenied(`access denied: ${reason}`);
    }
    const { user, roles } = identity;
    const lock = this.deps.locks.lockFor({ user, roles, ...marksOf(identity) });
    if (lock) throw accessDenied(`locked: ${lockMessage(lock)}`);
    if (session) return { session, mode: granted };
    const { proxyAddr } = tracker;
    if (!this.deps.peers || !proxyAddr || tracker.proxyId === this.deps.hub.proxyId) {
      throw new ApiError(
        'connection_problem',
        'this session is held by another proxy, which cannot be reached from here',
      );
    }
    const remote = new RemoteSession({
      tracker: { ...tracker, proxyAddr },
      current: () => this.deps.hub.tracker(sid),
      proofs: this.deps.peers,
      joiner: { user: identity.user, roles: identity.roles, mode: granted },
      ...(this.deps.pingIntervalMs ? { pingIntervalMs: this.deps.pingIntervalMs } : {}),
    });
    return { session: remote, mode: granted };
  }

  private async rejected(
    identity: Pick<Requester, 'user'>,
    request: ReachRequest,
    node: DialableNode | undefined,
    error: ApiError,
  ): Promise<ApiError> {
    await emitAudit(this.deps.audit, 'T1006W', {
      user: identity.user,
      login: request.login,
      server_id: node?.id ?? request.serverId,
      ...(node ? { server_hostname: node.hostname } : {}),
      reason: error.message,
      'addr.remote': request.remoteAddr,
      ...(request.traceId ? { trace_id: request.traceId } : {}),
    });
    return error;
  }
}
