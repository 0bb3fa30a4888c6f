import { parseDuration } from './duration.js';
import type { JoinSessionPolicy, ParticipantMode } from '@postern/contracts';
import { compileSelector, type CompiledSelector } from './labels.js';
import type { Role, RoleConditions } from './role.schema.js';
import { expandAll, type UserTraits } from './templates.js';
import { parseWhere, type WhereExpr } from './where.js';

/** The infrastructure kinds a role reaches through labels, and what each names on it. */
export type AccessKind = 'node' | 'app' | 'db' | 'kube' | 'desktop';
export type PrincipalField =
  | 'logins'
  | 'db_names'
  | 'db_users'
  | 'kubernetes_groups'
  | 'kubernetes_users'
  | 'windows_desktop_logins';
type LabelField =
  'node_labels' | 'app_labels' | 'db_labels' | 'kubernetes_labels' | 'windows_desktop_labels';

/**
 * `ruleKinds` are the resource kinds a role whose `allow` labels for this kind are not empty may
 * list and read without writing a rule (as in the reference, where listing servers needs no rule):
 * the listing is then filtered by labels.
 */
export const accessKinds: Record<
  AccessKind,
  { labels: LabelField; principals: readonly PrincipalField[]; ruleKinds: readonly string[] }
> = {
  node: { labels: 'node_labels', principals: ['logins'], ruleKinds: ['node'] },
  app: { labels: 'app_labels', principals: [], ruleKinds: ['app_server', 'app'] },
  db: { labels: 'db_labels', principals: ['db_names', 'db_users'], ruleKinds: ['db_server', 'db'] },
  kube: {
    labels: 'kubernetes_labels',
    principals: ['kubernetes_groups', 'kubernetes_users'],
    ruleKinds: ['kube_server', 'kube_cluster'],
  },
  desktop: {
    labels: 'windows_desktop_labels',
    principals: ['windows_desktop_logins'],
    ruleKinds: ['windows_desktop'],
  },
};
const kinds = Object.keys(accessKinds) as AccessKind[];
const principalFields: PrincipalField[] = kinds.flatMap((kind) => [
  ...accessKinds[kind].principals,
]);

export interface CompiledRule {
  resources: readonly string[];
  verbs: readonly string[];
  /** 'invalid' cannot happen for validated roles; it is read as "unknown". */
  where?: WhereExpr | 'invalid';
}

export interface ExpandedConditions {
  selectors: Record<AccessKind, CompiledSelector>;
  /** Whether the role as written names any principal for the kind (before templates expand). */
  namesPrincipals: Record<AccessKind, boolean>;
  principals: Record<PrincipalField, string[]>;
  rules: CompiledRule[];
  joinSessions: JoinSessionPolicy[];
  requireSessionJoin: ModerationPolicy[];
  requestRoles: string[];
  searchAsRoles: string[];
  suggestedReviewers: string[];
  reviewRoles: string[];
  requestThresholds: RequestThreshold[];
  /** allow.request.max_duration in ms; undefined when the role sets none. */
  requestMaxDurationMs: number | undefined;
}

/** One threshold of a role that lets its holder request roles. */
export interface RequestThreshold {
  name: string;
  approve: number;
  deny: number;
}

export interface ExpandedRole {
  name: string;
  role: Role;
  allow: ExpandedConditions;
  deny: ExpandedConditions;
}

function compileRule(rule: NonNullable<RoleConditions['rules']>[number]): CompiledRule {
  let where: CompiledRule['where'];
  if (rule.where !== undefined) {
    try {
      where = parseWhere(rule.where);
    } catch {
      where = 'invalid';
    }
  }
  return { resources: rule.resources, verbs: rule.verbs, where };
}

/** One `require_session_join` policy, its filter parsed once. */
export interface ModerationPolicy {
  name: string;
  /** Undefined: every participant matches. 'invalid' cannot happen for validated roles. */
  filter: WhereExpr | 'invalid' | undefined;
  kinds: readonly string[];
  count: number;
  modes: readonly ParticipantMode[];
  onLeave: 'terminate' | 'pause';
  /** The filter as written, for the waiting user's notice. */
  filterText: string;
}

function compileModeration(
  p: NonNullable<RoleConditions['require_session_join']>[number],
): ModerationPolicy {
  let filter: ModerationPolicy['filter'];
  if (p.filter !== undefined) {
    try {
      filter = parseWhere(p.filter);
    } catch {
      filter = 'invalid';
    }
  }
  return {
    name: p.name,
    filter,
    kinds: p.kinds,
    count: p.count,
    modes: p.modes,
    onLeave: p.on_leave ?? 'terminate',
    filterText: p.filter ?? '',
  };
}

function implicitRules(c: ExpandedConditions): CompiledRule[] {
  const readOnly = ['list', 'read'];
  const rules: CompiledRule[] = kinds
    .filter((kind) => !c.selectors[kind].empty)
    .map((kind) => ({ resources: accessKinds[kind].ruleKinds, verbs: readOnly }));
  if (c.requestRoles.length > 0 || c.searchAsRoles.length > 0) {
    rules.push({ resources: ['access_request'], verbs: ['list', 'read', 'create'] });
  }
  // Searching resources as requestable roles happens on the resource lists themselves
  // (`searchAsRoles=yes`): they must be listable, though the user's own roles show none there.
  if (c.searchAsRoles.length > 0) {
    rules.push({
      resources: kinds.flatMap((kind) => [...accessKinds[kind].ruleKinds]),
      verbs: readOnly,
    });
  }
  if (c.reviewRoles.length > 0) rules.push({ resources: ['access_request'], verbs: readOnly });
  if (c.joinSessions.length > 0) {
    rules.push({ resources: ['session_tracker', 'ssh_session'], verbs: readOnly });
  }
  return rules;
}

function expandConditions(
  c: RoleConditions,
  traits: UserTraits,
  side: 'allow' | 'deny',
): ExpandedConditions {
  const selectors = {} as Record<AccessKind, CompiledSelector>;
  const namesPrincipals = {} as Record<AccessKind, boolean>;
  for (const kind of kinds) {
    const labels = accessKinds[kind].labels;
    selectors[kind] = compileSelector(c[labels], traits, c[`${labels}_expression`]);
    namesPrincipals[kind] = accessKinds[kind].principals.some((f) => (c[f]?.length ?? 0) > 0);
  }
  const principals = {} as Record<PrincipalField, string[]>;
  for (const field of principalFields) principals[field] = expandAll(c[field], traits);
  const expanded: ExpandedConditions = {
    selectors,
    namesPrincipals,
    principals,
    rules: (c.rules ?? []).map(compileRule),
    joinSessions: c.join_sessions ?? [],
    requireSessionJoin: (c.require_session_join ?? []).map(compileModeration),
    requestRoles: c.request?.roles ?? [],
    searchAsRoles: c.request?.search_as_roles ?? [],
    suggestedReviewers: expandAll(c.request?.suggested_reviewers, traits),
    reviewRoles: c.review_requests?.roles ?? [],
    requestThresholds: (c.request?.thresholds ?? []).map((t, i) => ({
      name: t.name ?? `threshold-${i + 1}`,
      approve: t.approve ?? 1,
      deny: t.deny ?? 1,
    })),
    requestMaxDurationMs: c.request?.max_duration
      ? parseDuration(c.request.max_duration)
      : undefined,
  };
  if (side === 'allow') expanded.rules.push(...implicitRules(expanded));
  return expanded;
}

/** Expands a role's trait templates for one user and compiles its selectors and rules. */
export function expandRole(role: Role, traits: UserTraits): ExpandedRole {
  return {
    name: role.metadata.name,
    role,
    allow: expandConditions(role.spec.allow, traits, 'allow'),
    deny: expandConditions(role.spec.deny, traits, 'deny'),
  };
}
