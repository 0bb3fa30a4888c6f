import type { ExpandedRole } from './expand.js';
import { compileValue, selectorMatches, type ResourceLabels } from './labels.js';

/**
 * `kubernetes_resources` (role version 7): which objects of a Kubernetes cluster a role reaches,
 * by kind, namespace, name and verb. `namespace` and `name` are patterns like label values (`*`,
 * globs, `^regex$`). A rule of kind `namespace` names a namespace and reaches everything in it.
 * A role that reaches a cluster by `kubernetes_labels` but names no resources reaches them all,
 * as version 7 roles do.
 */
export interface KubeResourceRule {
  kind: string;
  verbs: readonly string[];
  namespace: (value: string) => boolean;
  name: (value: string) => boolean;
  /** Written as `*`: the rule reaches every namespace, every name. */
  anyNamespace: boolean;
  anyName: boolean;
}

export interface KubeResourceRules {
  allow: KubeResourceRule[];
  deny: KubeResourceRule[];
}

/** One object (or, with `name` undefined, any object of a collection) and the verb on it. */
export interface KubeResourceTarget {
  /** The role kind (`pod`), or undefined for a resource only `*` names. */
  kind: string | undefined;
  clusterWide: boolean;
  /** undefined: any namespace (a list across the cluster). */
  namespace: string | undefined;
  /** undefined: any name (a collection). */
  name: string | undefined;
  verb: string;
}

const everything = { kind: '*', namespace: '*', name: '*', verbs: ['*'] };

/** The rules of the roles that apply on a cluster with these labels. */
export function kubeResourceRules(
  roles: readonly ExpandedRole[],
  labels: ResourceLabels,
): KubeResourceRules {
  const allow: KubeResourceRule[] = [];
  const deny: KubeResourceRule[] = [];
  for (const { role, allow: allowed, deny: denied } of roles) {
    if (selectorMatches(allowed.selectors.kube, labels, 'allow')) {
      for (const rule of role.spec.allow.kubernetes_resources ?? [everything]) {
        allow.push(compileRule(rule, 'allow'));
      }
    }
    // Deny rules hold on every cluster unless the role's deny labels pick some.
    const denyHere =
      denied.selectors.kube.empty || selectorMatches(denied.selectors.kube, labels, 'deny');
    if (denyHere) {
      for (const rule of role.spec.deny.kubernetes_resources ?? []) {
        deny.push(compileRule(rule, 'deny'));
      }
    }
  }
  return { allow, deny };
}

/**
 * Whether the rule reaches the target; a target's undefined namespace or name means "some": the
 * rule reaches at least one object of that collection.
 */
export function kubeRuleReaches(rule: KubeResourceRule, target: KubeResourceTarget): boolean {
  if (!rule.verbs.includes('*') && !rule.verbs.includes(target.verb)) return false;
  if (rule.kind === 'namespace' && !target.clusterWide) {
    // A namespace rule reaches what is inside it, of any kind.
    return target.namespace === undefined || rule.name(target.namespace);
  }
  if (rule.kind !== '*' && rule.kind !== target.kind) return false;
  if (!target.clusterWide && target.namespace !== undefined && !rule.namespace(target.namespace)) {
    return false;
  }
  return target.name === undefined || rule.name(target.name);
}

/**
 * Whether a rule that reaches a collection (`name` undefined) reaches every object in it, so a
 * listing needs no look at each item.
 */
export function kubeRuleCoversAll(rule: KubeResourceRule, target: KubeResourceTarget): boolean {
  if (rule.kind === 'namespace' && !target.clusterWide) return target.namespace !== undefined;
  return (
    rule.anyName && (target.clusterWide || target.namespace !== undefined || rule.anyNamespace)
  );
}

function compileRule(
  rule: { kind: string; namespace?: string; name: string; verbs?: string[] },
  side: 'allow' | 'deny',
): KubeResourceRule {
  const namespace = rule.namespace ?? '*';
  return {
    kind: rule.kind,
    verbs: rule.verbs ?? ['*'],
    namespace: pattern(namespace, side),
    name: pattern(rule.name, side),
    anyNamespace: namespace === '*',
    anyName: rule.name === '*',
  };
}

/** A pattern that does not compile matches nothing on the allow side and everything on deny. */
function pattern(text: string, side: 'allow' | 'deny'): (value: string) => boolean {
  try {
    return compileValue(text);
  } catch {
    return () => side === 'deny';
  }
}
