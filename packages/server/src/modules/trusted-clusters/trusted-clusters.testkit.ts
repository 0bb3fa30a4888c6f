import { hostActor } from '../../access-control/access/actor.js';
import type { TestApp } from '../../testing/app-harness.testkit.js';

const admin = hostActor('cli:test');

/** A join token on `root` for a trusted cluster, as `postern tokens add --type trusted_cluster`. */
export async function trustedClusterToken(
  root: TestApp,
  roles: ('Trusted_cluster' | 'Node')[] = ['Trusted_cluster'],
): Promise<string> {
  const made = await root.services.joinTokens.create(
    { roles, join_method: 'token', allow: [], suggested_agent_matcher_labels: {} },
    admin,
  );
  return made.token;
}

/** The leaf's `trusted_cluster` resource naming the root `root` at `rootUrl`. */
export const rootResource = (token: string, rootUrl: string, roleMap: string) =>
  `kind: trusted_cluster
version: v2
metadata: {name: root}
spec:
  token: ${token}
  web_proxy_addr: ${rootUrl}
  role_map: ${roleMap}
`;

/** Connects `leaf` to `root` (a fresh token, the resource created on the leaf by an admin). */
export async function connectLeaf(root: TestApp, rootUrl: string, leaf: TestApp, roleMap: string) {
  const token = await trustedClusterToken(root);
  await leaf.services.trustedClusters.trustedClusters.create(
    rootResource(token, rootUrl, roleMap),
    admin,
  );
}
