import { kubeResourceRules } from '../../../access-control/rbac/kube-resources.js';
import type { RoleSet } from '../../../access-control/rbac/index.js';
import type { KubeClusterRecord } from '../kube-kind.js';
import { chooseImpersonation, type Impersonation } from './impersonation.js';
import { parseKubeRequest, type KubeRequest } from './kube-request.js';
import { judgeKubeRequest, type KubeItem } from './kube-verdict.js';

export type KubeAuthorization =
  | {
      ok: true;
      request: KubeRequest;
      impersonation: Impersonation;
      /** Listings the roles reach in part: what each object must pass. */
      filter?: (item: KubeItem) => boolean;
      /** A create the roles allow for some names: what the object's name must pass. */
      judgeCreated?: (item: KubeItem) => boolean;
    }
  | { ok: false; code: 400 | 403; message: string; request?: KubeRequest };

/**
 * Whether a user may send one API request to a cluster, and as whom: the roles' labels, the
 * Kubernetes users and groups they allow (and any narrowing the client asked for), and their
 * `kubernetes_resources` on what the request names. kubectl's requests, the console's pod picker
 * and exec from the browser all go through here.
 */
export function authorizeKubeCall(
  who: { user: string; roleSet: RoleSet },
  cluster: KubeClusterRecord,
  method: string,
  path: string,
  headers: NodeJS.Dict<string[]> = {},
): KubeAuthorization {
  const labels = cluster.metadata.labels;
  const labelled = { labels, name: cluster.metadata.name };
  // Unknown or out of the roles' reach alike: 403 for every path, discovery too.
  if (!who.roleSet.canAccess('kube', labelled)) {
    return {
      ok: false,
      code: 403,
      message: `your roles do not reach Kubernetes cluster ${cluster.metadata.name}`,
    };
  }
  const impersonation = chooseImpersonation(who.roleSet, who.user, labelled, headers);
  if ('refused' in impersonation) return { ok: false, code: 403, message: impersonation.refused };
  const request = parseKubeRequest(method, path);
  if (!request) {
    return { ok: false, code: 400, message: `not a Kubernetes API request: ${method} ${path}` };
  }
  if (!request.resource) return { ok: true, request, impersonation };
  const verdict = judgeKubeRequest(kubeResourceRules(who.roleSet.roles, labels), request);
  if (!verdict.allowed) return { ok: false, code: 403, message: verdict.reason, request };
  const { filter, judgeCreated } = verdict;
  return { ok: true, request, impersonation, filter, judgeCreated };
}
