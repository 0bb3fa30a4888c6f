import type { Duplex } from 'node:stream';
import { serveAs } from './inner-connection.js';
import { proxySessionRequester, serveProxySession, type SignedInUser } from './join-command.js';
import { loginAttempts } from './login-attempts.js';
import type { SshProxyDeps } from './ssh-proxy.js';

/** A root's user this (leaf) cluster admitted, asking for its SSH proxy itself. */
export interface RootUserAtProxy {
  /** The name they reached it by (`_proxy.lab`, leafProxyHost): the host certificate's. */
  host: string;
  root: string;
  user: string;
  /** The roles this cluster's role map gave them. */
  roles: string[];
  userCaKeys: string[];
  clientIp: string;
  /** Their roles on the root ask for a per-session MFA check. */
  rootSessionMfa: boolean;
}

/**
 * `postern join --cluster lab SID` (docs/trusted-clusters.md): the root pipes its user's
 * connection here, and this cluster's SSH proxy serves its own sessions to them as it does to
 * its own users (`join`, proxy-session deps in join-command.ts), with the roles the role map
 * gave, so this cluster's join_sessions rules, locks and audit decide.
 */
export function serveProxyToRootUser(stream: Duplex, at: RootUserAtProxy, deps: SshProxyDeps) {
  serveAs(stream, [at.host], 'postern-proxy', deps, (connection) => {
    connection.on('error', (error: Error) =>
      deps.log('ssh proxy: a root user at the proxy', { error: error.message }),
    );
    const { refuse, certified } = loginAttempts(connection, deps.log);
    let user: SignedInUser | undefined;
    connection.on('authentication', (ctx) => {
      const checked = certified(ctx, {
        userCaPublicKeys: () => at.userCaKeys,
        // As at this proxy's own port: you@proxy, not a login.
        userNameIs: 'user',
        now: () => new Date(deps.now()),
        clientIp: at.clientIp,
      });
      if (!checked) return;
      const { identity } = checked;
      if (identity.user !== at.user) {
        return refuse(ctx, `this connection belongs to ${at.user}, not ${identity.user}`, true);
      }
      if (!checked.signed) return ctx.accept();
      const { validAfter, validBefore, sessionMfaTargets } = identity;
      user = { name: at.user, roles: at.roles, accessRequests: [], validAfter, validBefore };
      if (sessionMfaTargets) user.sessionMfaTargets = sessionMfaTargets;
      ctx.accept();
    });
    connection.on('ready', () => {
      if (!user) return connection.end();
      const proxySession = {
        terminals: deps.terminals,
        requester: proxySessionRequester(user, deps),
        ...(at.rootSessionMfa ? { rootSessionMfa: at.root } : {}),
      };
      connection.on('session', (accept) => serveProxySession(accept(), proxySession));
    });
  });
}
