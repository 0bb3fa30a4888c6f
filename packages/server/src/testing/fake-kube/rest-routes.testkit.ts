import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiGroupList, apiVersions, coreV1Resources, versionInfo } from './discovery.testkit.js';
import { listObject, namespaceObject, type PodObject } from './kube-objects.testkit.js';
import { parseLabelSelector } from './label-selector.testkit.js';
import type { PodStore } from './pod-store.testkit.js';
import { sendJson, sendStatus } from './requests.testkit.js';
import { includeObjectOf, namespaceTable, podTable, wantsTable } from './tables.testkit.js';
import { servePodLog } from './pod-log-route.testkit.js';
import { watchPods } from './watch.testkit.js';

export interface RestContext {
  pods: PodStore;
  namespaces: string[];
  gitVersion: string;
  /** host:port, for /api's serverAddressByClientCIDRs. */
  serverAddress: string;
}

const podsPath = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?pods$/;
const podPath =
  /^\/api\/v1\/namespaces\/([^/]+)\/pods\/([^/]+)(?:\/(log|exec|attach|portforward))?$/;

/** The read-only REST calls kubectl makes; what the fake does not serve is a Status, never a hang. */
export function serveRest(context: RestContext, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'https://fake');
  const path = url.pathname.replace(/\/$/, '') || '/';
  const fixed: Record<string, () => unknown> = {
    '/version': () => versionInfo(context.gitVersion),
    '/api': () => apiVersions(context.serverAddress),
    '/apis': () => apiGroupList,
    '/api/v1': () => coreV1Resources,
  };
  const pods = podsPath.exec(path);
  const pod = podPath.exec(path);
  const namespace = /^\/api\/v1\/namespaces(?:\/([^/]+))?$/.exec(path);
  const known = fixed[path] !== undefined || pods || pod || namespace;
  if (!known)
    return sendStatus(res, 404, 'NotFound', 'the server could not find the requested resource');
  if (req.method !== 'GET') {
    return sendStatus(
      res,
      405,
      'MethodNotAllowed',
      `${req.method} is not supported by the fake API server`,
    );
  }
  if (fixed[path]) return sendJson(res, 200, fixed[path]());
  if (namespace) return serveNamespaces(context, req, res, namespace[1]);
  if (pods) return servePods(context, req, res, url.searchParams, pods[1]);
  const [, ns, name, subresource] = pod as unknown as [string, string, string, string | undefined];
  if (subresource === 'log') return servePodLog(context.pods, req, res, ns, name, url.searchParams);
  if (subresource) {
    // exec, attach and portforward are upgrades; a plain request is what a real server refuses.
    return sendStatus(res, 400, 'BadRequest', 'Upgrade request required');
  }
  const object = context.pods.get(ns, name);
  if (!object) return sendStatus(res, 404, 'NotFound', `pods "${name}" not found`);
  if (!wantsTable(req.headers.accept)) return sendJson(res, 200, object);
  const resourceVersion = Number(object.metadata.resourceVersion);
  sendJson(
    res,
    200,
    podTable([object], { resourceVersion, includeObject: includeObjectOf(url.searchParams) }),
  );
}

function servePods(
  context: RestContext,
  req: IncomingMessage,
  res: ServerResponse,
  query: URLSearchParams,
  namespace: string | undefined,
): void {
  let matches: (pod: PodObject) => boolean;
  try {
    matches = podFilter(query, namespace);
  } catch (error) {
    return sendStatus(res, 400, 'BadRequest', (error as Error).message);
  }
  if (query.get('watch') === 'true' || query.get('watch') === '1') {
    return watchPods(context.pods, req, res, query, matches);
  }
  const items = context.pods.list(namespace).filter(matches);
  const resourceVersion = context.pods.resourceVersion;
  if (wantsTable(req.headers.accept)) {
    return sendJson(
      res,
      200,
      podTable(items, { resourceVersion, includeObject: includeObjectOf(query) }),
    );
  }
  sendJson(res, 200, listObject('PodList', items, resourceVersion));
}

/** labelSelector, and the fieldSelectors kubectl uses (metadata.name, metadata.namespace). */
function podFilter(
  query: URLSearchParams,
  namespace: string | undefined,
): (pod: PodObject) => boolean {
  const labels = parseLabelSelector(query.get('labelSelector') ?? '');
  const fields: [string, string][] = (query.get('fieldSelector') ?? '')
    .split(',')
    .filter((clause) => clause.trim() !== '')
    .map((clause) => {
      const match = /^\s*(metadata\.name|metadata\.namespace)\s*==?\s*(\S*)\s*$/.exec(clause);
      if (!match) throw new Error(`field label not supported: ${clause}`);
      return [match[1]!, match[2]!];
    });
  return (pod) =>
    (namespace === undefined || pod.metadata.namespace === namespace) &&
    labels(pod.metadata.labels ?? {}) &&
    fields.every(([field, value]) =>
      field === 'metadata.name' ? pod.metadata.name === value : pod.metadata.namespace === value,
    );
}

function serveNamespaces(
  context: RestContext,
  req: IncomingMessage,
  res: ServerResponse,
  name: string | undefined,
): void {
  if (name !== undefined) {
    if (!context.namespaces.includes(name)) {
      return sendStatus(res, 404, 'NotFound', `namespaces "${name}" not found`);
    }
    return sendJson(res, 200, namespaceObject(name));
  }
  const items = context.namespaces.map(namespaceObject);
  if (wantsTable(req.headers.accept)) {
    return sendJson(
      res,
      200,
      namespaceTable(items, { resourceVersion: 1, includeObject: 'Metadata' }),
    );
  }
  sendJson(res, 200, listObject('NamespaceList', items, 1));
}
