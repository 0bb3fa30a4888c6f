import type { LeafReach } from '../../../modules/trusted-clusters/leaf-reach.js';
import type { AppIdentity } from '../app-sessions.service.js';
import type { ProxyTarget } from '../proxy/proxy-target.js';
import type { LeafAppAgents } from './leaf-app-agents.js';
import { openLeafAppTunnel } from './leaf-app-tunnel.js';

type LeafApp = NonNullable<AppIdentity['leaf']>;

/**
 * How the root forwards a browser's request to a leaf's app: through tunnels to the leaf (a
 * pool per app session), as plain HTTP the leaf reads as it reads `postern proxy app`'s. The leaf
 * signs the app's identity JWT and applies the app's rewrite rules: the root sets none of its own,
 * but strips what a client could claim as before. The upstream's made-up name is what the leaf
 * points the app's redirects at, and what this root turns back into the app's host here.
 */
export function leafAppTarget(
  identity: AppIdentity & { leaf: LeafApp },
  at: { host: string; port: string },
  deps: {
    reach: LeafReach;
    agents: LeafAppAgents;
    stripHeaders: readonly string[];
    stripCookies: readonly string[];
    onRequestDone: NonNullable<ProxyTarget['onRequestDone']>;
  },
): ProxyTarget {
  const { cluster, app } = identity.leaf;
  const open = () => openLeafAppTunnel(deps.reach, identity);
  return {
    upstream: new URL(`http://${app}.${cluster}.leaf.invalid`),
    insecureSkipVerify: false,
    publicHost: at.host,
    publicPort: at.port,
    setHeaders: {},
    stripHeaders: deps.stripHeaders,
    stripCookies: deps.stripCookies,
    redirectHosts: [],
    agent: deps.agents.for(identity.sid, open, identityOf(identity)),
    connect: open,
    onRequestDone: deps.onRequestDone,
  };
}

/** What a tunnel was opened as: a change of roles, traits or MFA rule means new tunnels. */
function identityOf({ roles, traits, leaf }: AppIdentity & { leaf: LeafApp }): string {
  const sortedTraits = Object.entries(traits).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([[...roles].sort(), sortedTraits, leaf.sessionMfa]);
}
