/** Every request names its cluster first: `https://<proxy>/kube/<cluster>/api/v1/...`. */
export const kubePathPrefix = '/kube/';

/**
 * A proxy URL taken apart: the cluster it names ('' when none) and the API server's path after it,
 * query kept (`/` when nothing follows).
 */
export function splitKubeUrl(url: string): { cluster: string; path: string } {
  const [first = '', ...rest] = url.startsWith(kubePathPrefix)
    ? url.slice(kubePathPrefix.length).split('/')
    : [];
  return { cluster: decoded(first.split('?')[0] ?? ''), path: `/${rest.join('/')}` };
}

/** A malformed escape (`%E0`) is kept as it came: it names no cluster, and is refused as such. */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
