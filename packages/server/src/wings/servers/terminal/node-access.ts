import { sessionMfaRefusal } from '../../../identity/mfa/session-mfa.js';
import { sessionEndReasons } from '@postern/contracts';
import type { Client } from 'ssh2';
import { accessDenied, ApiError, notFound } from '../../../errors.js';
import {
  webSessionMarks,
  webSessionSubject,
  type Identity,
} from '../../../http/request-identity.js';
import type { ConnectToNodeOptions } from '../../../ssh/client.js';
import type { AccessResolver } from '../../../access-control/access/access-resolver.js';
import type { SubjectRef } from '../../../access-control/access/credential-revocation.js';
import {
  lockMessage,
  marksOf,
  type CredentialMarks,
  type LockWatcher,
} from '../../../access-control/locks/lock-watcher.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import type { AuditHealth } from '../../../modules/audit/spool/index.js';
import type { DialableNode, NodeDialer } from './node-dialer.js';
import type { OpenRateLimiter } from './open-rate.js';

/** Finds the server a terminal names: a UUID, a hostname or host:port (reference §2.1). */
export interface NodeDirectory {
  /** Undefined when missing or hidden from this user (RBAC), so names cannot be probed. */
  resolve(serverId: string, roleSet: RoleSet): DialableNode | undefined;
}

/**
 * A server as `ssh` names it: its name (id), its hostname, or either with this cluster's name
 * after it (`ssh root@web-1.lab`); another suffix is another cluster, or part of a real name.
 */
export function resolveNodeName(
  nodes: NodeDirectory,
  host: string,
  clusterName: string,
  roleSet: RoleSet,
): DialableNode | undefined {
  const direct = nodes.resolve(host, roleSet);
  if (direct) return direct;
  const suffix = `.${clusterName}`.toLowerCase();
  if (host.length <= suffix.length || !host.toLowerCase().endsWith(suffix)) return undefined;
  return nodes.resolve(host.slice(0, -suffix.length), roleSet);
}

/** Who asks for a server: a web session's user, or an SSH client's certificate. */
/**
 * Who asks to reach a server, with the marks of the credential they ask with (the MFA device it
 * was signed in with, the one that answered the per-session check for this session, the access
 * requests it assumed): a lock on any of them refuses it.
 */
export interface Requester extends CredentialMarks {
  user: string;
  roles: string[];
  roleSet: RoleSet;
  /** When the caller's credential ends (web session or certificate): connections end then too. */
  expiresAt: number;
  /** Who to judge again while a connection lives (absent: only locks and time end it). */
  subject?: SubjectRef;
  /** Passed a per-session MFA check for this session (require_session_mfa). */
  mfaVerified?: boolean;
  /** A per-session MFA certificate's sessions, for a join by id through the SSH proxy. */
  sessionMfaTargets?: string[];
}

/** A web session's user as a requester. */
export const requesterOf = (identity: Identity): Requester => ({
  user: identity.user,
  roles: identity.roles,
  roleSet: identity.roleSet,
  expiresAt: Date.parse(identity.session.expires),
  subject: webSessionSubject(identity),
  ...(identity.mfaVerified ? { mfaVerified: true } : {}),
  ...webSessionMarks(identity),
});

/** An SSH client's agent, reachable through its connection (wings/servers/ssh-proxy). */
export type ForwardedAgent = NonNullable<ConnectToNodeOptions['agent']>;

export interface NodeAccessDeps {
  nodes: NodeDirectory;
  dialer: NodeDialer;
  locks: LockWatcher;
  now: () => number;
  /** Per-user limit on opening connections: every dial (terminal, command, sftp, forward, file). */
  openRate?: OpenRateLimiter;
  /** The current users and roles, to judge live connections again (absent: they are not). */
  subjects?: Pick<AccessResolver, 'current'>;
  /** Refuses new sessions while the audit log cannot take their events (audit.on_failure). */
  auditHealth?: AuditHealth;
  /** Refuses new sessions while the proxy drains before it stops (the session hub). */
  drain?: { assertAccepting(): void };
  /** Every role name: a refusal tells a user who may request roles or resources so. */
  roleNames?: () => readonly string[];
}

/** Added to a refusal for a user whose roles let them ask for more (an access request). */
export const requestAccessHint =
  'your roles let you ask for more with an access request (Access Requests in the console, or postern request)';

/** The verdict on using a login on a server; `node` is set whenever the server was found. */
export type LoginVerdict =
  { ok: true; node: DialableNode } | { ok: false; node: DialableNode | undefined; error: ApiError };

/**
 * Who may reach which server as which login (RBAC labels, logins and deny, locks), and the
 * connection made for them: one place, so the terminal, file transfer and the SSH proxy never
 * disagree.
 */
export class NodeAccess {
  constructor(private readonly deps: NodeAccessDeps) {}

  check(requester: Requester, serverId: string, login: string): LoginVerdict {
    const node = this.deps.nodes.resolve(serverId, requester.roleSet);
    // A server the user may not see is reported as missing, so names cannot be probed.
    // The hint depends on the user's roles only, so it tells nothing about the server.
    const hint = this.mayRequest(requester) ? `; ${requestAccessHint}` : '';
    if (!node || !requester.roleSet.canAccess('node', node)) {
      return { ok: false, node, error: notFound(`server "${serverId}" is not found${hint}`) };
    }
    const refuse = (error: ApiError): LoginVerdict => ({ ok: false, node, error });
    if (!requester.roleSet.loginsFor(node).includes(login)) {
      return refuse(
        accessDenied(`access denied: login "${login}" is not allowed on ${node.hostname}${hint}`),
      );
    }
    const locked = this.lockedReason(requester, node, login);
    if (locked) return refuse(accessDenied(locked));
    try {
      this.deps.drain?.assertAccepting();
      this.deps.auditHealth?.assertCanAudit();
    } catch (error) {
      if (error instanceof ApiError) return refuse(error);
      throw error;
    }
    const unchecked = sessionMfaRefusal(requester, 'this client');
    if (unchecked) return refuse(accessDenied(unchecked));
    if (!node.online)
      return refuse(new ApiError('connection_problem', `${node.hostname} is offline`));
    return { ok: true, node };
  }

  /**
   * Judges a live connection again against the CURRENT users, roles and traits: why it must
   * end (the user or credential is gone, the login or the server is no longer allowed), or
   * undefined while it may go on. Locks and time limits are the hub's own checks.
   */
  /**
   * `locked: <message>` while a lock covers the requester (user, roles, either device), the
   * login or the server (by id or host name); else undefined. lock: strict: while the lock view
   * may miss a lock, the watcher reports one for strict roles.
   */
  lockedReason(
    requester: Requester,
    node: Pick<DialableNode, 'id' | 'hostname'>,
    login: string,
  ): string | undefined {
    const locks = this.deps.locks;
    const { user, roles } = requester;
    const lock =
      locks.lockFor({ user, roles, login, node: node.id, ...marksOf(requester) }) ??
      locks.lockFor({ node: node.hostname });
    return lock ? `locked: ${lockMessage(lock)}` : undefined;
  }

  /** The user's roles let them request roles, or resources through search_as_roles. */
  private mayRequest(requester: Requester): boolean {
    const names = this.deps.roleNames?.();
    if (!names) return false;
    const { roleSet } = requester;
    return roleSet.requestableRoles(names).length > 0 || roleSet.searchAsRoles(names).length > 0;
  }

  recheck(requester: Requester, node: DialableNode, login: string): string | undefined {
    if (!requester.subject || !this.deps.subjects) return undefined;
    const current = this.deps.subjects.current(requester.subject);
    if (!current.ok) return current.reason;
    const { roleSet } = current;
    // The node as the inventory has it now (labels may have changed), else as it was dialled.
    const fresh = this.deps.nodes.resolve(node.id, roleSet) ?? node;
    if (!roleSet.canAccess('node', fresh) || !roleSet.loginsFor(fresh).includes(login)) {
      return sessionEndReasons.accessRemoved(login, node.hostname);
    }
    return undefined;
  }

  /** How long a connection made now may live: `max_session_ttl`, and no longer than the caller. */
  ttlMs(requester: Requester): number {
    const left = requester.expiresAt - this.deps.now();
    return Math.max(1000, Math.min(requester.roleSet.options().maxSessionTtlMs, left));
  }

  /**
   * Dials a checked node with a fresh certificate for this login that lives `ttlMs`. An `agent`
   * (an SSH client's forwarded agent) is offered to the node only when the roles allow
   * forward_agent. Failures are `connection_problem` errors that say what went wrong.
   */
  async connect(
    requester: Requester,
    node: DialableNode,
    login: string,
    agent?: ForwardedAgent,
  ): Promise<{ client: Client; expiresAt: number }> {
    // Before any work: a refused open must cost nothing.
    this.deps.openRate?.take(requester.user);
    const options = requester.roleSet.options();
    const ttlMs = this.ttlMs(requester);
    const expiresAt = this.deps.now() + ttlMs;
    const client = await this.deps.dialer
      .connect(
        node,
        login,
        {
          user: requester.user,
          roles: requester.roles,
          ttlMs,
          permitPortForwarding: options.portForwarding,
          permitAgentForwarding: options.forwardAgent,
          extensions: options.certExtensions,
          denyFileCopy: !options.sshFileCopy,
          hostUser: requester.roleSet.hostUserFor(node, login),
        },
        options.forwardAgent ? agent : undefined,
      )
      .catch((error: unknown) => {
        throw new ApiError('connection_problem', dialFailure(node, error));
      });
    return { client, expiresAt };
  }
}

export function dialFailure(node: DialableNode, error: unknown): string {
  const reason = error instanceof Error ? error.message : 'unknown error';
  return `failed to connect to ${node.hostname}: ${reason}`;
}
