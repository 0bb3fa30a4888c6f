import type { Duplex } from 'node:stream';
import type { ServerChannel, TcpipRequestInfo } from 'ssh2';
import { plainAddress } from '../../../ssh/ca.service.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import { lockMessage } from '../../../access-control/locks/lock-watcher.js';
import { emitAuditInBackground, remoteAddr } from '../../../modules/audit/emit.js';
import { SessionMfa } from '../../../identity/mfa/session-mfa.js';
import {
  leafProxyHost,
  type RootSshHandler,
} from '../../../modules/trusted-clusters/cluster-ssh.js';
import { serveInnerConnection, serveRefusal, type InnerTarget } from './inner-connection.js';
import { serveProxyToRootUser } from './leaf-proxy-session.js';
import type { SshProxyDeps } from './ssh-proxy.js';

/**
 * `ssh -J user@root root@web-1.lab`: a server of a leaf cluster, through the root's jump host
 * (docs/trusted-clusters.md). The root does not end the inner SSH connection, the leaf's SSH
 * proxy does: the root pipes the client's jump channel into the leaf's tunnel, so the leaf's
 * RBAC, recording and audit apply, and the client checks the leaf's host CA for `*.lab`.
 */

/** How often the root checks its own locks and the certificate's end on a piped connection. */
const recheckMs = 1_000;

/** The root's side: who asked, from their certificate. */
export interface RootJump {
  user: string;
  roles: string[];
  accessRequests: string[];
  validBefore: Date;
  remoteAddr: string;
}

/** Dials the leaf, then accepts the client's channel and pipes it; rejects when that fails. */
export function forwardToLeaf(
  leaf: string,
  info: TcpipRequestInfo,
  channel: { accept: () => ServerChannel; reject: () => void },
  jump: RootJump,
  deps: SshProxyDeps,
): void {
  const current = deps.requesterFor(jump.user, jump.roles, jump.accessRequests);
  // The root's own require_session_mfa goes with the user: the leaf asks for the check too.
  const sessionMfa = SessionMfa.required(current.roleSet);
  const target = { host: info.destIP, port: info.destPort, clientAddr: jump.remoteAddr };
  const user = {
    user: jump.user,
    roles: current.roles,
    traits: current.traits,
    expires: jump.validBefore,
    sessionMfa,
  };
  deps.clusterSsh!.dial(leaf, user, target).then(
    (stream) => {
      if (!stream) {
        deps.log('ssh proxy: unknown target on a leaf', { user: jump.user, leaf, ...target });
        return channel.reject();
      }
      const hop = { user: jump.user, cluster: leaf, server: `${target.host}:${target.port}` };
      pipeWhileAllowed(channel.accept(), stream, jump, current.roles, deps, hop);
    },
    (error: unknown) => {
      deps.log('ssh proxy: cannot reach the leaf', { leaf, error: String(error) });
      channel.reject();
    },
  );
}

/**
 * Both ways until either side ends, or the root locks the user or their certificate ends. The
 * root audits the hop's start and end: the session itself is the leaf's to record, but an
 * auditor reading only the root's log still sees who went where, when, and why it ended.
 */
function pipeWhileAllowed(
  channel: ServerChannel,
  stream: Duplex,
  jump: RootJump,
  roles: string[],
  deps: SshProxyDeps,
  hop: { user: string; cluster: string; server: string },
): void {
  const started = deps.now();
  const addr = remoteAddr(jump.remoteAddr);
  emitAuditInBackground(deps.audit, 'TPOS060I', { ...hop, ...addr });
  channel.pipe(stream).pipe(channel);
  const watch = setInterval(() => {
    const lock = deps.locks.lockFor({ user: jump.user, roles });
    if (!lock && deps.now() < jump.validBefore.getTime()) return;
    const reason = lock ? `locked: ${lockMessage(lock)}` : 'the certificate expired';
    deps.log('ssh proxy: ending a connection to a leaf', { user: jump.user, reason });
    end(reason);
  }, recheckMs);
  let ended = false;
  const end = (reason = 'closed') => {
    if (ended) return;
    ended = true;
    clearInterval(watch);
    stream.destroy();
    channel.destroy();
    const duration_ms = deps.now() - started;
    emitAuditInBackground(deps.audit, 'TPOS061I', { ...hop, ...addr, reason, duration_ms });
  };
  for (const side of [channel, stream] as const) {
    side.on('close', () => end());
    side.on('error', () => end('the connection failed'));
  }
}

/**
 * The leaf's side: a root user the leaf admitted gets an inner connection to the server they
 * named, judged with the roles the role map gave, or this proxy's own sessions for the reserved
 * name `_proxy.<this cluster>` (`join`); one it refused is told why by their client.
 */
export function rootUserHandler(
  deps: SshProxyDeps,
  resolveTarget: (host: string, port: number, roleSet: RoleSet) => InnerTarget | undefined,
): RootSshHandler {
  return (connection) => {
    if ('refused' in connection.admitted) {
      const { refused } = connection.admitted;
      return (stream) => serveRefusal(stream, connection.host, refused, deps);
    }
    const { user, roles, rootSessionMfa } = connection.admitted;
    const clientIp = plainAddress(connection.clientAddr.replace(/:\d*$/, ''));
    const { root, userCaKeys, host } = connection;
    if (host.toLowerCase() === leafProxyHost(deps.clusterName)) {
      const at = { host, root, user, roles, userCaKeys, clientIp, rootSessionMfa };
      return (stream) => serveProxyToRootUser(stream, at, deps);
    }
    const { roleSet } = deps.requesterFor(user, roles, []);
    const target = resolveTarget(connection.host, connection.port, roleSet);
    if (!target) return undefined;
    const jump = {
      user,
      remoteAddr: connection.clientAddr,
      clientIp,
      sessions: { open: 0 },
      fromRoot: { root, userCaKeys, roles, rootSessionMfa },
    };
    return (stream) => serveInnerConnection(stream, target, jump, deps);
  };
}
