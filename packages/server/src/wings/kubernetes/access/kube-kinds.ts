/**
 * The kinds a role's `kubernetes_resources` names (role version 7), by the API's group and plural
 * resource name. Any other resource is matched only by `kind: '*'`.
 */
const kinds: Record<string, string> = {
  '/pods': 'pod',
  '/secrets': 'secret',
  '/configmaps': 'configmap',
  '/namespaces': 'namespace',
  '/services': 'service',
  '/serviceaccounts': 'serviceaccount',
  '/nodes': 'kube_node',
  '/persistentvolumes': 'persistentvolume',
  '/persistentvolumeclaims': 'persistentvolumeclaim',
  'apps/deployments': 'deployment',
  'apps/replicasets': 'replicaset',
  'apps/statefulsets': 'statefulset',
  'apps/daemonsets': 'daemonset',
  'rbac.authorization.k8s.io/clusterroles': 'clusterrole',
  'rbac.authorization.k8s.io/roles': 'kube_role',
  'rbac.authorization.k8s.io/clusterrolebindings': 'clusterrolebinding',
  'rbac.authorization.k8s.io/rolebindings': 'rolebinding',
  'batch/cronjobs': 'cronjob',
  'batch/jobs': 'job',
  'certificates.k8s.io/certificatesigningrequests': 'certificatesigningrequest',
  'networking.k8s.io/ingresses': 'ingress',
};

/** Kinds that live outside namespaces: a rule's `namespace` does not apply to them. */
export const clusterWideKinds = new Set([
  'namespace',
  'kube_node',
  'persistentvolume',
  'clusterrole',
  'clusterrolebinding',
  'certificatesigningrequest',
]);

/** The verbs a rule may name, besides `*`. */
export const kubeVerbs = [
  'get',
  'list',
  'watch',
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  'exec',
  'portforward',
] as const;

/** The role kind of a resource, or undefined for one only `*` names. */
export function roleKindOf(apiGroup: string, plural: string): string | undefined {
  return kinds[`${apiGroup}/${plural}`];
}

/**
 * The verb a rule is matched against: exec and attach are `exec` and port forwarding is
 * `portforward` (on the pod), a pod's log is `get`; anything else keeps the request's verb.
 */
export function ruleVerbOf(verb: string, plural: string, subresource: string): string {
  if (plural === 'pods' && (subresource === 'exec' || subresource === 'attach')) return 'exec';
  if (plural === 'pods' && subresource === 'portforward') return 'portforward';
  if (plural === 'pods' && subresource === 'log') return 'get';
  return verb;
}
