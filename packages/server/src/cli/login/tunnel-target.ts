import { apiPaths } from '@postern/contracts';
import { leafNamed } from './nodes.js';
import { tunnelCertificates, type AskCode } from './session-mfa.js';
import { currentLogin } from './session-commands.js';

/** What `postern proxy db|app` and `postern db connect` tunnel to. */
export interface TunnelResource {
  kind: 'db' | 'app';
  name: string;
  /** `--cluster`: a trusted leaf of the cluster signed in to (its own name means itself). */
  cluster?: string;
}

/** Where a tunnel's connections go, and what signs them (for listenThroughProxy). */
export interface TunnelTarget {
  name: string;
  path: string;
  /** A per-session MFA certificate for a new connection, or undefined: the login's. */
  certificate: () => Promise<string | undefined>;
  /** The leaf, when the tunnel goes through the root to one. */
  leaf?: string;
}

const connectPath = {
  db: { here: apiPaths.databaseConnect, in: apiPaths.databaseConnectIn },
  app: { here: apiPaths.appTcp, in: apiPaths.appTcpIn },
} as const;

/**
 * This cluster's own tunnel route, or a trusted leaf's through the root (`--cluster`), with a
 * per-session MFA certificate for each connection when the roles ask (a code then). For a leaf,
 * the root asks the leaf whether its roles ask, checks the code with the user's devices (they
 * are the root's) and vouches for the check to the leaf.
 */
export async function tunnelTarget(
  env: NodeJS.ProcessEnv,
  resource: TunnelResource,
  askCode: AskCode,
): Promise<TunnelTarget> {
  const { kind, name } = resource;
  const leaf = leafNamed(resource.cluster, await currentLogin(env));
  const mfaTarget = { kind, name, ...(leaf ? { cluster: leaf } : {}) };
  const certificate = tunnelCertificates(env, mfaTarget, askCode);
  if (leaf) {
    return {
      name: `${name} on ${leaf}`,
      path: connectPath[kind].in(leaf, name),
      certificate,
      leaf,
    };
  }
  return { name, path: connectPath[kind].here(name), certificate };
}

/**
 * A listing path for the CLI's signed read: the catalog of the cluster signed in to, or with a
 * leaf the console's listing of that leaf, which the root forwards (the shapes are the same).
 */
export function catalogPath(
  own: string,
  leafListing: (cluster: string) => string,
  leaf: string | undefined,
): string {
  return `${leaf ? leafListing(leaf) : own}?limit=1000`;
}
