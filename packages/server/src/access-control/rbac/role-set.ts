import type { JoinSessionPolicy } from '@postern/contracts';
import { hostUserGrant, type HostUserGrant } from './host-users.js';
import {
  concretePrincipals,
  resourceAllowed,
  ruleAllows,
  wildcardPrincipals,
  type Principals,
} from './access-checker.js';
import {
  expandRole,
  type AccessKind,
  type ExpandedRole,
  type ModerationPolicy,
  type RequestThreshold,
} from './expand.js';
import { matchesAny, type ResourceLabels } from './labels.js';
import { mergeOptions, type EffectiveOptions } from './options.js';
import type { Role } from './role.schema.js';
import type { TraitMap, UserTraits } from './templates.js';
import type { WhereUser } from './where.js';

/** Whose roles these are: the name and traits that templates and `where` clauses read. */
export interface RoleSetUser extends UserTraits {
  name: string;
}

/** Anything with labels: a node, an app, a database, a Kubernetes cluster or a desktop. */
export interface Labelled {
  labels?: ResourceLabels;
  /** Its name or id: what a resource access request names (absent: matches no such request). */
  id?: string;
  name?: string;
  metadata?: { name?: string };
}

/**
 * Roles that count only for some resources: those an access request for specific resources
 * added, by role name, each with the `kind:name` keys of the resources it was approved for.
 */
export type RoleRestrictions = ReadonlyMap<string, ReadonlySet<string>>;

/** The key a resource access request names a resource by. */
export const resourceKey = (kind: string, name: string) => `${kind}:${name}`;
const keyOf = (kind: AccessKind, resource: Labelled) =>
  resourceKey(requestKindOf[kind], resource.id ?? resource.name ?? resource.metadata?.name ?? '');
/** How access requests name each kind (the reference's resource kinds). */
const requestKindOf: Record<AccessKind, string> = {
  node: 'node',
  app: 'app',
  db: 'db',
  kube: 'kube_cluster',
  desktop: 'windows_desktop',
};

/**
 * A user's roles, with their trait templates expanded, answering every access question the
 * server asks. Build one per request (or cache per user and role revision); it is immutable.
 */
export class RoleSet {
  readonly roles: readonly ExpandedRole[];
  readonly roleNames: readonly string[];
  readonly user: WhereUser;
  #options: EffectiveOptions | undefined;

  readonly #restrictions: RoleRestrictions | undefined;

  constructor(roles: readonly Role[], user: RoleSetUser, restrictions?: RoleRestrictions) {
    this.roles = roles.map((role) => expandRole(role, user));
    this.#restrictions = restrictions && restrictions.size > 0 ? restrictions : undefined;
    this.roleNames = roles.map((role) => role.metadata.name);
    const traits: Record<string, readonly string[] | undefined> = { ...user.traits };
    for (const [name, values] of Object.entries(user.externalTraits ?? ({} as TraitMap))) {
      traits[name] = values;
    }
    this.user = { metadata: { name: user.name }, spec: { roles: this.roleNames, traits } };
  }

  static from(roles: readonly Role[], user: RoleSetUser): RoleSet {
    return new RoleSet(roles, user);
  }

  /** Of these roles, each one alone: which of them let this user reach the resource. */
  rolesGranting(kind: AccessKind, resource: Labelled): string[] {
    return this.roles
      .filter((r) => resourceAllowed([r], kind, resource.labels ?? {}))
      .map((r) => r.name);
  }

  /**
   * Whether the verb is allowed on the kind (`*` rules match every kind and verb). Pass the
   * resource (e.g. `{participants: [...]}` for a session) when a rule may carry a `where` clause:
   * without it such allow rules do not match and such deny rules do.
   */
  checkRule(kind: string, verb: string, resource?: unknown): boolean {
    return ruleAllows(this.roles, kind, verb, { user: this.user, resource }, 'check');
  }

  /** Whether the verb might be allowed on some resource of the kind (the ACL's question). */
  guessRule(kind: string, verb: string): boolean {
    return ruleAllows(this.roles, kind, verb, { user: this.user }, 'guess');
  }

  /** Whether the labels give access to the resource at all (listing, connecting). */
  canAccess(kind: AccessKind, resource: Labelled): boolean {
    return resourceAllowed(this.#rolesFor(kind, resource), kind, resource.labels ?? {});
  }

  /** The roles that count for this resource: all, but restricted roles only for their own. */
  #rolesFor(kind: AccessKind, resource: Labelled): readonly ExpandedRole[] {
    const restrictions = this.#restrictions;
    if (!restrictions) return this.roles;
    const key = keyOf(kind, resource);
    return this.roles.filter((r) => restrictions.get(r.name)?.has(key) ?? true);
  }

  /**
   * Every login some node could allow, sorted: the principals of a user certificate, which is not
   * tied to one node. Logins denied without node labels (denied everywhere) are left out; the
   * rest is narrowed per node by whoever accepts the certificate (`loginsFor`).
   */
  certificateLogins(): string[] {
    const allowed = new Set<string>();
    const denied = new Set<string>();
    for (const { allow, deny } of this.roles) {
      // A role that selects no node grants its logins nowhere.
      if (!allow.selectors.node.empty)
        for (const login of allow.principals.logins) allowed.add(login);
      if (deny.selectors.node.empty) for (const login of deny.principals.logins) denied.add(login);
    }
    if (denied.has('*')) return [];
    return [...allowed].filter((login) => login !== '*' && !denied.has(login)).sort();
  }

  /** What the node may do for a login with no OS user yet there (host-users.ts), if anything. */
  hostUserFor(node: Labelled, login: string): HostUserGrant | undefined {
    return hostUserGrant(this.#rolesFor('node', node), node.labels ?? {}, login);
  }

  /** The logins allowed on a node, sorted. */
  loginsFor(node: Labelled): string[] {
    return concretePrincipals(this.#rolesFor('node', node), 'node', 'logins', node.labels ?? {});
  }

  desktopLoginsFor(desktop: Labelled): string[] {
    return concretePrincipals(
      this.#rolesFor('desktop', desktop),
      'desktop',
      'windows_desktop_logins',
      desktop.labels ?? {},
    );
  }

  kubeGroupsFor(cluster: Labelled): string[] {
    return concretePrincipals(
      this.#rolesFor('kube', cluster),
      'kube',
      'kubernetes_groups',
      cluster.labels ?? {},
    );
  }

  kubeUsersFor(cluster: Labelled): string[] {
    return concretePrincipals(
      this.#rolesFor('kube', cluster),
      'kube',
      'kubernetes_users',
      cluster.labels ?? {},
    );
  }

  dbNamesFor(db: Labelled): Principals {
    return wildcardPrincipals(this.#rolesFor('db', db), 'db', 'db_names', db.labels ?? {});
  }

  dbUsersFor(db: Labelled): Principals {
    return wildcardPrincipals(this.#rolesFor('db', db), 'db', 'db_users', db.labels ?? {});
  }

  options(): EffectiveOptions {
    this.#options ??= mergeOptions(this.roles.map((r) => r.role.spec.options));
    return this.#options;
  }

  /** Of the given role names, those this user may request (allow.request.roles minus deny). */
  requestableRoles(allRoleNames: readonly string[]): string[] {
    return this.#requestable(allRoleNames, (c) => c.requestRoles);
  }

  /** Of the given role names, those this user may search as (resource access requests). */
  searchAsRoles(allRoleNames: readonly string[]): string[] {
    return this.#requestable(allRoleNames, (c) => c.searchAsRoles);
  }

  /**
   * The thresholds that apply to requesting `roleName`: those of every role that lets this user
   * request it; one approval or one denial when none sets any (reference semantics).
   */
  requestThresholds(roleName: string): RequestThreshold[] {
    const granting = this.roles.filter((r) => matchesAny(r.allow.requestRoles, roleName));
    const thresholds = granting.flatMap((r) => r.allow.requestThresholds);
    return thresholds.length > 0 ? thresholds : [{ name: 'default', approve: 1, deny: 1 }];
  }

  /**
   * The longest access a request for these roles may give: the shortest max_duration of the roles
   * that let this user request them, else the user's max_session_ttl.
   */
  requestMaxDurationMs(roleNames: readonly string[]): number {
    const limits = this.roles
      .filter((r) => roleNames.some((name) => matchesAny(r.allow.requestRoles, name)))
      .flatMap((r) => (r.allow.requestMaxDurationMs ? [r.allow.requestMaxDurationMs] : []));
    return limits.length > 0 ? Math.min(...limits) : this.options().maxSessionTtlMs;
  }

  /** Whether this user may review a request for every one of these roles (review_requests). */
  mayReviewRoles(roleNames: readonly string[]): boolean {
    return (
      roleNames.length > 0 &&
      roleNames.every(
        (name) =>
          this.roles.some((r) => matchesAny(r.allow.reviewRoles, name)) &&
          !this.roles.some((r) => matchesAny(r.deny.reviewRoles, name)),
      )
    );
  }

  suggestedReviewers(): string[] {
    return [...new Set(this.roles.flatMap((r) => r.allow.suggestedReviewers))].sort();
  }

  /**
   * The moderation a session of this kind needs (`require_session_join`): per role that has
   * policies for the kind, those policies. Every role's set must be met (any one policy of it).
   */
  moderationPolicySets(kind: string): ModerationPolicy[][] {
    return this.roles
      .map((r) =>
        r.allow.requireSessionJoin.filter((p) => p.kinds.some((k) => k === kind || k === '*')),
      )
      .filter((set) => set.length > 0);
  }

  /** Allow policies for joining other users' sessions. */
  joinSessionPolicies(): JoinSessionPolicy[] {
    return this.roles.flatMap((r) => r.allow.joinSessions);
  }

  #requestable(
    names: readonly string[],
    pick: (c: ExpandedRole['allow']) => readonly string[],
  ): string[] {
    return names
      .filter(
        (name) =>
          this.roles.some((r) => matchesAny(pick(r.allow), name)) &&
          !this.roles.some((r) => matchesAny(pick(r.deny), name)),
      )
      .sort();
  }
}
