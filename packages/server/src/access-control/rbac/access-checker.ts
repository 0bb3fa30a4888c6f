import {
  accessKinds,
  type AccessKind,
  type CompiledRule,
  type ExpandedRole,
  type PrincipalField,
} from './expand.js';
import { selectorMatches, type ResourceLabels } from './labels.js';
import { evaluateWhere, type WhereContext } from './where.js';

/**
 * The decisions themselves, over expanded roles. Deny beats allow everywhere: a matching deny rule
 * refuses the verb whatever the allow rules say, and a matching deny selector refuses the resource
 * or the principals it names.
 */

/** 'check' enforces (unknown where: allow no, deny yes); 'guess' asks whether it might be allowed
 * before the resource is known (unknown where: allow yes, deny no), as the console's ACL does. */
export type RuleMode = 'check' | 'guess';

function covers(rule: CompiledRule, kind: string, verb: string, side: 'allow' | 'deny'): boolean {
  if (!rule.resources.includes(kind) && !rule.resources.includes('*')) return false;
  if (rule.verbs.includes('*') || rule.verbs.includes(verb)) return true;
  // Holding read implies readnosecrets; denying either denies both.
  if (verb === 'readnosecrets' && rule.verbs.includes('read')) return true;
  return side === 'deny' && verb === 'read' && rule.verbs.includes('readnosecrets');
}

function applies(rule: CompiledRule, ctx: WhereContext, mode: RuleMode, side: 'allow' | 'deny') {
  if (rule.where === undefined) return true;
  const result = rule.where === 'invalid' ? undefined : evaluateWhere(rule.where, ctx);
  if (result !== undefined) return result;
  return mode === 'guess' ? side === 'allow' : side === 'deny';
}

export function ruleAllows(
  roles: readonly ExpandedRole[],
  kind: string,
  verb: string,
  ctx: WhereContext,
  mode: RuleMode,
): boolean {
  const matches = (side: 'allow' | 'deny') =>
    roles.some((role) =>
      role[side].rules.some(
        (rule) => covers(rule, kind, verb, side) && applies(rule, ctx, mode, side),
      ),
    );
  return !matches('deny') && matches('allow');
}

/**
 * A deny selector that matches refuses the whole resource when its role names no principals for
 * the kind (or names `*`); when it names some, only those are refused (see `principalsOn`).
 */
export function resourceAllowed(
  roles: readonly ExpandedRole[],
  kind: AccessKind,
  labels: ResourceLabels,
): boolean {
  const refused = roles.some(
    ({ deny }) =>
      selectorMatches(deny.selectors[kind], labels, 'deny') &&
      (!deny.namesPrincipals[kind] ||
        accessKinds[kind].principals.some((field) => deny.principals[field].includes('*'))),
  );
  return (
    !refused && roles.some(({ allow }) => selectorMatches(allow.selectors[kind], labels, 'allow'))
  );
}

/** Principals allowed on a resource and those refused, before taking one from the other. */
export function principalsOn(
  roles: readonly ExpandedRole[],
  kind: AccessKind,
  field: PrincipalField,
  labels: ResourceLabels,
): { allowed: Set<string>; denied: Set<string> } {
  const allowed = new Set<string>();
  const denied = new Set<string>();
  if (!resourceAllowed(roles, kind, labels)) return { allowed, denied };
  for (const { allow, deny } of roles) {
    if (selectorMatches(allow.selectors[kind], labels, 'allow')) {
      for (const value of allow.principals[field]) allowed.add(value);
    }
    // A deny without labels for this kind refuses its principals everywhere (fail closed).
    if (deny.selectors[kind].empty || selectorMatches(deny.selectors[kind], labels, 'deny')) {
      for (const value of deny.principals[field]) denied.add(value);
    }
  }
  return { allowed, denied };
}

/** Concrete principals (logins, kube groups…): `*` is never granted, and denying `*` refuses all. */
export function concretePrincipals(
  roles: readonly ExpandedRole[],
  kind: AccessKind,
  field: PrincipalField,
  labels: ResourceLabels,
): string[] {
  const { allowed, denied } = principalsOn(roles, kind, field, labels);
  if (denied.has('*')) return [];
  return [...allowed].filter((value) => value !== '*' && !denied.has(value)).sort();
}

/** Database names and users, where `*` grants any. `permits` answers for one name. */
export interface Principals {
  /** The names granted by name, minus those refused. */
  values: string[];
  /** `*` is granted and not refused: any name outside `except` is allowed. */
  any: boolean;
  except: string[];
}

export function wildcardPrincipals(
  roles: readonly ExpandedRole[],
  kind: AccessKind,
  field: PrincipalField,
  labels: ResourceLabels,
): Principals {
  const { allowed, denied } = principalsOn(roles, kind, field, labels);
  if (denied.has('*')) return { values: [], any: false, except: [] };
  return {
    values: [...allowed].filter((v) => v !== '*' && !denied.has(v)).sort(),
    any: allowed.has('*'),
    except: [...denied].sort(),
  };
}

export function permits(principals: Principals, name: string): boolean {
  if (principals.except.includes(name)) return false;
  return principals.any || principals.values.includes(name);
}
