import { apiPaths } from '@postern/contracts';
import type { Duplex } from 'node:stream';
import { webSessionMfaSubject } from '../../../identity/mfa/session-mfa.js';
import type { LeafCaller } from '../../../modules/trusted-clusters/leaf-grants.js';
import type { LeafReach } from '../../../modules/trusted-clusters/leaf-reach.js';
import {
  LeafTunnelRefusal,
  openLeafTunnel,
} from '../../../modules/trusted-clusters/leaf-tunnel.js';
import type { AppIdentity } from '../app-sessions.service.js';
import { UpstreamRefusal } from '../proxy/error-replies.js';

type LeafApp = NonNullable<AppIdentity['leaf']>;

/**
 * The leaf refused this user the app (403: its role map no longer grants it, a lock there): the
 * browser is shown the leaf's reason rather than a bare 502.
 */
export class LeafAppDenial extends UpstreamRefusal {
  override name = 'LeafAppDenial';
}

/**
 * The user's leaf session as the root asks the leaf for it: one per app session, so a role or
 * lock change here reaches the leaf with the next grant (leaf-grants.ts).
 */
export function appSessionCaller(identity: AppIdentity): LeafCaller {
  return {
    key: `app:${identity.sid}`,
    user: identity.user,
    roles: identity.roles,
    traits: identity.traits,
    expires: new Date(identity.expiresMs).toISOString(),
    sessionMfa: identity.leaf?.sessionMfa ?? false,
  };
}

/**
 * One connection to a leaf's HTTP app for a browser's app session on this root: the tunnel
 * `postern proxy app --cluster` opens (`sites/<leaf>/tcpapps/<name>`), opened by the root itself
 * with the user's leaf session, over which the leaf serves HTTP as for any tunnel (its role map
 * and locks decide, its identity JWT, header rules and audit). A launch that passed a per-session
 * MFA check carries this root's word for it. A leaf that no longer takes the session (401) is
 * asked for a new one, once.
 */
export async function openLeafAppTunnel(
  reach: LeafReach,
  identity: AppIdentity & { leaf: LeafApp },
): Promise<Duplex> {
  const caller = appSessionCaller(identity);
  const { cluster, app, checked } = identity.leaf;
  const word = checked
    ? (session: string) =>
        reach.word(cluster, caller.user, webSessionMfaSubject(session, `app:${app}`))
    : undefined;
  try {
    return await openLeafTunnel(reach, cluster, caller, apiPaths.appTcpIn(cluster, app), word);
  } catch (error) {
    if (error instanceof LeafTunnelRefusal && error.status === 403) {
      throw new LeafAppDenial(error.reason);
    }
    throw error;
  }
}
