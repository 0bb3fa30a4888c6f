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
  /** Undefined: the login's certificate. */
  certificate?: () => Promise<string | undefined>;
  /** The leaf, when the tunnel goes through the root to one. */
  leaf?: string;
}

const connectPath = {
  db: { here: apiPaths.databaseConnect, in: apiPaths.databaseConnectIn },
  app: { here: apiPaths.appTcp, in: apiPaths.appTcpIn },
} as const;

/**
 * This cluster's own tunnel route, with a per-session MFA certificate for each connection when
 * the roles ask (a code then); or a trusted leaf's through the root (`--cluster`), signed with
 * the login's certificate: the root checks it and the leaf's rules decide, per-session MFA
 * included (the leaf refuses with the reason when its rules ask: only the console can answer).
 */
export async function tunnelTarget(
  env: NodeJS.ProcessEnv,
  resource: TunnelResource,
  askCode: AskCode,
): Promise<TunnelTarget> {
  const { kind, name } = resource;
  const leaf = leafNamed(resource.cluster, await currentLogin(env));
  if (leaf) return { name: `${name} on ${leaf}`, path: connectPath[kind].in(leaf, name), leaf };
  return {
    name,
    path: connectPath[kind].here(name),
    certificate: tunnelCertificates(env, { kind, name }, askCode),
  };
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
