import { apiPaths, trustedClusterItemSchema, type TrustedClusterItem } from '@postern/contracts';
import { api, decode } from '../../api';

/**
 * Trusted cluster calls (spec §7 `trustedcluster/{name?}`): items carry the resource as YAML in
 * `content`, the join token replaced by the secret placeholder.
 */

export async function fetchTrustedClusters(signal?: AbortSignal): Promise<TrustedClusterItem[]> {
  const url = apiPaths.trustedClusters;
  const items = decode(trustedClusterItemSchema.array(), await api.get(url, { signal }), url);
  return items.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * One trusted cluster as stored now (the 409 flow's Reload). The spec promises only the list,
 * so this reads it rather than a single-item GET.
 */
export async function fetchTrustedCluster(name: string): Promise<TrustedClusterItem> {
  const found = (await fetchTrustedClusters()).find((item) => item.name === name);
  if (!found) throw new Error(`the trusted cluster ${name} no longer exists`);
  return found;
}

/** `POST /trustedcluster`: joins the root; refused when the name exists or the root says no. */
export async function createTrustedCluster(content: string): Promise<TrustedClusterItem> {
  const url = apiPaths.trustedClusters;
  return decode(trustedClusterItemSchema, await api.post(url, { content }), url);
}

/** `PUT /trustedcluster/{name}`: a token left as the placeholder keeps the stored one. */
export async function updateTrustedCluster(
  name: string,
  content: string,
): Promise<TrustedClusterItem> {
  const url = apiPaths.trustedCluster(name);
  return decode(trustedClusterItemSchema, await api.put(url, { content }), url);
}

export async function deleteTrustedCluster(name: string): Promise<void> {
  await api.delete(apiPaths.trustedCluster(name));
}
