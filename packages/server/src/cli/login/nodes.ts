import { readFile } from 'node:fs/promises';
import { apiPaths, nodeListResponseSchema, type NodeJson } from '@postern/contracts';
import { signRequest } from '../../ssh/signed-request.js';
import type { Profile } from './postern-home.js';
import type { ProxyClient } from './proxy-client.js';

/** Pages read at most: a listing for ssh_config and `ls`, not an export. */
const maxPages = 20;

/** The leaf a `--cluster` flag names: none for the cluster signed in to, which is no leaf. */
export function leafNamed(cluster: string | undefined, profile: Profile): string | undefined {
  return cluster && cluster !== profile.cluster ? cluster : undefined;
}

/**
 * Every node the user may see, through `ssh/nodes` signed with the login's certificate; with
 * `search`, those whose hostname, address or labels hold all its words (the console's search).
 * With `leaf`, a trusted leaf cluster's, through the root's forwarder (`sites/<leaf>/nodes`).
 */
export async function listNodes(
  client: ProxyClient,
  profile: Profile,
  search = '',
  leaf?: string,
): Promise<NodeJson[]> {
  const privateKeyPem = await readFile(profile.key_path, 'utf8');
  const certificateLine = (await readFile(profile.cert_path, 'utf8')).trim();
  const nodes: NodeJson[] = [];
  let startKey = '';
  for (let page = 0; page < maxPages; page += 1) {
    const query = new URLSearchParams({
      limit: '500',
      ...(startKey ? { startKey } : {}),
      ...(search ? { search } : {}),
    });
    const path = leaf ? apiPaths.nodes(leaf) : apiPaths.sshNodes;
    const pathAndQuery = `${path}?${query.toString()}`;
    const headers = signRequest({
      method: 'GET',
      pathAndQuery,
      certificateLine,
      privateKeyPem,
      now: Date.now(),
    });
    const answer = await client.get(pathAndQuery, nodeListResponseSchema, headers);
    nodes.push(...answer.items);
    if (!answer.startKey) break;
    startKey = answer.startKey;
  }
  return nodes;
}
