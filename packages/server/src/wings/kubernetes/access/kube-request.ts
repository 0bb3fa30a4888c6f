/**
 * What one Kubernetes API request asks, read from its method and path the way the API server
 * reads them (its "request info"): discovery and other paths outside resources, or a verb on a
 * resource kind, in a namespace or the whole cluster, on one object or a collection.
 */
export type KubeRequest =
  | { resource: false; path: string }
  | {
      resource: true;
      verb: string;
      apiGroup: string;
      version: string;
      /** The plural resource name (`pods`), as in the path. */
      plural: string;
      /** `exec`, `log`, `status`…; '' for the object itself. */
      subresource: string;
      /** '' when the request names no namespace (a cluster-wide kind, or every namespace). */
      namespace: string;
      /** '' for a collection. */
      name: string;
    };

const namespaceSubresources = new Set(['status', 'finalize']);

const methodVerbs: Record<string, [item: string, collection: string]> = {
  GET: ['get', 'list'],
  HEAD: ['get', 'list'],
  POST: ['create', 'create'],
  PUT: ['update', 'update'],
  PATCH: ['patch', 'patch'],
  DELETE: ['delete', 'deletecollection'],
};

export function parseKubeRequest(method: string, url: string): KubeRequest | undefined {
  const [pathPart, queryPart = ''] = url.split('?', 2) as [string, string?];
  const path = pathPart.replace(/\/+$/, '') || '/';
  const verbs = methodVerbs[method.toUpperCase()];
  let parts: string[];
  try {
    parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return undefined;
  }
  if (parts.some((part) => part === '.' || part === '..')) return undefined;
  let rest: string[];
  let apiGroup: string;
  let version: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    [apiGroup, version, rest] = ['', parts[1]!, parts.slice(2)];
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    [apiGroup, version, rest] = [parts[1]!, parts[2]!, parts.slice(3)];
  } else {
    // Discovery (/api, /apis, /api/v1, /apis/apps/v1), /version, /openapi, health checks.
    return { resource: false, path };
  }
  if (!verbs) return undefined;
  let watch = new URLSearchParams(queryPart).get('watch');
  if (rest[0] === 'watch') {
    // The deprecated `/watch/` prefix: a watch whatever the query says.
    rest = rest.slice(1);
    watch = 'true';
  }
  let namespace = '';
  // `namespaces/<name>/<resource>…` is inside a namespace; `namespaces/<name>` and its status
  // and finalize are the cluster-wide object itself, as the API server reads them.
  if (rest[0] === 'namespaces' && rest.length >= 3 && !namespaceSubresources.has(rest[2]!)) {
    namespace = rest[1]!;
    rest = rest.slice(2);
  }
  const [plural, name = '', subresource = '', ...extra] = rest;
  if (!plural || extra.length > 0) return undefined;
  let verb = name ? verbs[0] : verbs[1];
  if (verb === 'list' && (watch === 'true' || watch === '1')) verb = 'watch';
  return { resource: true, verb, apiGroup, version, plural, subresource, namespace, name };
}
