import {
  kubeRuleCoversAll,
  kubeRuleReaches,
  type KubeResourceRules,
  type KubeResourceTarget,
} from '../../../access-control/rbac/kube-resources.js';
import { clusterWideKinds, roleKindOf, ruleVerbOf } from './kube-kinds.js';
import type { KubeRequest } from './kube-request.js';

type ResourceRequest = Extract<KubeRequest, { resource: true }>;

/** One object of a listing, as its metadata names it. */
export interface KubeItem {
  namespace: string;
  name: string;
}

/**
 * The proxy's answer to one request under the roles' `kubernetes_resources`: refused (with the
 * reason kubectl shows), allowed, or allowed with a filter every listed or watched object must
 * pass (the roles reach some objects of the collection, not all), or with a judge of the name of
 * the object a create makes.
 */
export type KubeVerdict =
  | { allowed: false; reason: string }
  | {
      allowed: true;
      filter?: (item: KubeItem) => boolean;
      /**
       * A create the roles allow for some names only: the object's own name (in the request's
       * body) must pass before the request goes on.
       */
      judgeCreated?: (item: KubeItem) => boolean;
    };

export function judgeKubeRequest(rules: KubeResourceRules, request: ResourceRequest): KubeVerdict {
  const kind = roleKindOf(request.apiGroup, request.plural);
  // A namespaced object always has its namespace in the path; a name without one is cluster-wide.
  const clusterWide = kind ? clusterWideKinds.has(kind) : !request.namespace && !!request.name;
  const verb = ruleVerbOf(request.verb, request.plural, request.subresource);
  const target: KubeResourceTarget = {
    kind,
    clusterWide,
    namespace: clusterWide ? undefined : request.namespace || undefined,
    name: request.name || undefined,
    verb,
  };
  const what = describeKubeRequest(request, verb);
  const reaches = (side: 'allow' | 'deny', of: KubeResourceTarget) =>
    rules[side].some((rule) => kubeRuleReaches(rule, of));
  if (target.name !== undefined) {
    return reaches('allow', target) && !reaches('deny', target)
      ? { allowed: true }
      : { allowed: false, reason: `your roles do not allow ${what}` };
  }
  if (!reaches('allow', target))
    return { allowed: false, reason: `your roles do not allow ${what}` };
  const coveredBy = (side: 'allow' | 'deny') =>
    rules[side].some((rule) => kubeRuleReaches(rule, target) && kubeRuleCoversAll(rule, target));
  if (coveredBy('deny')) return { allowed: false, reason: `your roles deny ${what}` };
  if (coveredBy('allow') && !reaches('deny', target)) return { allowed: true };
  // Some objects of the collection, not all: each is judged as it is listed.
  const filter = (item: KubeItem) => {
    const one: KubeResourceTarget = {
      ...target,
      namespace: clusterWide ? undefined : item.namespace,
      name: item.name,
    };
    return reaches('allow', one) && !reaches('deny', one);
  };
  if (verb === 'list' || verb === 'watch') return { allowed: true, filter };
  if (verb === 'create' && !request.subresource) return { allowed: true, judgeCreated: filter };
  return {
    allowed: false,
    reason: `your roles allow ${what} only for some objects: name the object`,
  };
}

/** `get on pods "web-1" in namespace "prod"`, for refusals. */
export function describeKubeRequest(request: ResourceRequest, verb: string): string {
  const resource = request.subresource
    ? `${request.plural}/${request.subresource}`
    : request.plural;
  const name = request.name ? ` "${request.name}"` : '';
  const where = request.namespace ? ` in namespace "${request.namespace}"` : '';
  return `${verb} on ${resource}${name}${where}`;
}
