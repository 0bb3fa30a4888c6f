import type { ServerChannel, TcpipRequestInfo } from 'ssh2';
import { plainAddress } from '../../../ssh/ca.service.js';
import { relayLeafHop } from '../../../modules/trusted-clusters/leaf-hop.js';
import { marksOf } from '../../../access-control/locks/lock-watcher.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
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

/** The root's side: who asked, from their certificate. */
export interface RootJump {
  user: string;
  roles: string[];
  accessRequests: string[];
  validBefore: Date;
  remoteAddr: string;
  /** The MFA device the certificate's login was proven with. */
  mfaDevice?: string | undefined;
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
      relayLeafHop(
        channel.accept(),
        stream,
        {
          user: jump.user,
          roles: current.roles,
          ...marksOf(jump),
          expiresMs: jump.validBefore.getTime(),
          remoteAddr: jump.remoteAddr,
          codes: { start: 'TPOS060I', end: 'TPOS061I' },
          fields: { cluster: leaf, server: `${target.host}:${target.port}` },
        },
        deps,
      );
    },
    (error: unknown) => {
      deps.log('ssh proxy: cannot reach the leaf', { leaf, error: String(error) });
      channel.reject();
    },
  );
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
