import type { ParticipantMode, TerminalSize } from '@postern/contracts';
import type { Client, ClientChannel } from 'ssh2';
import { accessDenied, ApiError, notFound } from '../../errors.js';
import type { Identity } from '../../plugins/access-guard.js';
import { openExec, openShell, type ConnectToNodeOptions } from '../../ssh/client.js';
import { emitAudit } from '../audit/emit.js';
import type { AuditStore } from '../audit/index.js';
import { lockMessage, type LockWatcher } from '../locks/lock-watcher.js';
import { defaultJoinMode, participantModesFor } from '../sessions/join-policy.js';
import type { RoleSet } from '../rbac/index.js';
import type { LiveSession } from '../sessions/live-session.js';
import type { SessionHub } from '../sessions/session-hub.js';
import type { DialableNode, NodeDialer } from './node-dialer.js';

/** An SSH client's agent, reachable through its connection (modules/ssh-proxy). */
export type ForwardedAgent = NonNullable<ConnectToNodeOptions['agent']>;

/** Finds the server a terminal names: a UUID, a hostname or host:port (reference §2.1). */
export interface NodeDirectory {
  /** Undefined when missing or hidden from this user (RBAC), so names cannot be probed. */
  resolve(serverId: string, roleSet: RoleSet): DialableNode | undefined;
}

export interface TerminalServiceDeps {
  hub: SessionHub;
  nodes: NodeDirectory;
  dialer: NodeDialer;
  locks: LockWatcher;
  audit: AuditStore;
  clusterName: string;
  now: () => number;
}

/** Who asks for a server: a web session's user, or an SSH client's certificate (issue 7). */
export interface Requester {
  user: string;
  roles: string[];
  roleSet: RoleSet;
  /** When the caller's credential ends (web session or certificate): sessions end then too. */
  expiresAt: number;
}

/** A web session's user as a requester. */
export const requesterOf = (identity: Identity): Requester => ({
  user: identity.user,
  roles: identity.roles,
  roleSet: identity.roleSet,
  expiresAt: Date.parse(identity.session.expires),
});

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
 * The rules of opening a terminal: who may reach which server as which login (RBAC labels,
 * logins and deny, locks), for how long (max_session_ttl, the web session), and joining.
 * Every refusal is audited as a rejected session.
 */
export class TerminalService {
  constructor(private readonly deps: TerminalServiceDeps) {}

  /**
   * Whether the requester may reach the server as the login now, and for how long. A refusal is
   * audited (T1006W) and thrown as the error to show.
   */
  async authorize(requester: Requester, request: ReachRequest): Promise<Reach> {
    const node = this.deps.nodes.resolve(request.serverId, requester.roleSet);
    const reject = (error: ApiError) => this.rejected(requester, request, node, error);
    // A server the user may not see is reported as missing, so names cannot be probed.
    if (!node || !requester.roleSet.canAccess('node', node)) {
      throw await reject(notFound(`server "${request.serverId}" is not found`));
    }
    if (!requester.roleSet.loginsFor(node).includes(request.login)) {
      throw await reject(
        accessDenied(`access denied: login "${request.login}" is not allowed on ${node.hostname}`),
      );
    }
    const locks = this.deps.locks;
    const lock =
      locks.lockFor({
        user: requester.user,
        roles: requester.roles,
        login: request.login,
        node: node.id,
      }) ?? locks.lockFor({ node: node.hostname });
    if (lock) throw await reject(accessDenied(`locked: ${lockMessage(lock)}`));
    if (!node.online)
      throw await reject(new ApiError('connection_problem', `${node.hostname} is offline`));
    const options = requester.roleSet.options();
    const left = requester.expiresAt - this.deps.now();
    const ttlMs = Math.max(1000, Math.min(options.maxSessionTtlMs, left));
    return { node, login: request.login, ttlMs, options };
  }

  /**
   * An SSH connection to the server as the login, with a certificate for this reach only. An
   * `agent` (an SSH client's forwarded agent) is offered to the node only when the roles allow
   * forward_agent.
   */
  async dial(
    requester: Requester,
    reach: Reach,
    request: ReachRequest,
    agent?: ForwardedAgent,
  ): Promise<Client> {
    const forwarded = reach.options.forwardAgent ? agent : undefined;
    return this.deps.dialer
      .connect(
        reach.node,
        reach.login,
        {
          user: requester.user,
          roles: requester.roles,
          ttlMs: reach.ttlMs,
          permitPortForwarding: reach.options.portForwarding,
          permitAgentForwarding: reach.options.forwardAgent,
        },
        forwarded,
      )
      .catch(async (error: unknown) => {
        const failure = new ApiError('connection_problem', dialFailure(reach.node, error));
        throw await this.rejected(requester, request, reach.node, failure);
      });
  }

  /** A terminal session in the hub: recorded, listed in Active Sessions, joinable. */
  async start(
    requester: Requester,
    request: StartRequest,
    agent?: ForwardedAgent,
  ): Promise<LiveSession> {
    const reach = await this.authorize(requester, request);
    const client = await this.dial(requester, reach, request, agent);
    const { node, ttlMs, options } = reach;
    let channel: ClientChannel;
    try {
      const pty = { cols: request.size.w, rows: request.size.h, term: 'xterm-256color' };
      channel = request.command
        ? await openExec(client, request.command, { pty })
        : await openShell(client, pty);
    } catch (error) {
      client.end();
      const failure = new ApiError('connection_problem', dialFailure(node, error));
      throw await this.rejected(requester, request, node, failure);
    }
    return this.deps.hub.create({
      owner: { user: requester.user, roles: requester.roles },
      login: request.login,
      node: { id: node.id, hostname: node.hostname, addr: node.addr },
      clusterName: this.deps.clusterName,
      proxyId: this.deps.hub.proxyId,
      traceId: request.traceId,
      size: request.size,
      command: request.command,
      expiresAt: this.deps.now() + ttlMs,
      idleTimeoutMs: options.clientIdleTimeoutMs,
      recordSession: options.recordSession.ssh,
      client,
      channel,
    });
  }

  /** The live session to join and the mode granted, or an error the joiner can read. */
  joinable(identity: Identity, sid: string, mode?: ParticipantMode) {
    const tracker = this.deps.hub.tracker(sid);
    const session = this.deps.hub.get(sid);
    const viewer = { user: identity.user, roleSet: identity.roleSet };
    const modes = tracker ? participantModesFor(viewer, tracker) : [];
    if (!tracker || modes.length === 0) throw notFound(`session ${sid} is not found`);
    const granted = mode ?? defaultJoinMode(identity.user, tracker.owner);
    if (!modes.includes(granted)) {
      throw accessDenied(`access denied: you may join this session as ${modes.join(' or ')}`);
    }
    if (!session) {
      throw new ApiError(
        'connection_problem',
        'this session is held by another proxy; joining across proxies is not supported yet',
      );
    }
    const lock = this.deps.locks.lockFor({ user: identity.user, roles: identity.roles });
    if (lock) throw accessDenied(`locked: ${lockMessage(lock)}`);
    return { session, mode: granted };
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

function dialFailure(node: DialableNode, error: unknown): string {
  const reason = error instanceof Error ? error.message : 'unknown error';
  return `failed to connect to ${node.hostname}: ${reason}`;
}
