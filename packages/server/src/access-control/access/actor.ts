import { accessDenied } from '../../errors.js';
import { canGrantRoles, type RoleSet } from '../rbac/index.js';

/**
 * Who does something, for the rules of a service and the `user` field of its audit events: a
 * signed-in user with their roles, or the host's administrator. The admin CLI opens the storage
 * itself, so whoever runs it holds every permission already; RBAC does not apply to it.
 */
export interface Actor {
  name: string;
  /** null: the host's administrator (`postern` commands). */
  roleSet: RoleSet | null;
}

export const hostActor = (name: string): Actor => ({ name, roleSet: null });

/**
 * Whether the actor may apply the verb (list, read, create, update, delete) to this resource of
 * the kind: the route already asked whether it MIGHT be allowed; this evaluates `where` clauses
 * against the resource itself.
 */
export function may(actor: Actor, kind: string, verb: string, resource: unknown): boolean {
  return actor.roleSet === null || actor.roleSet.checkRule(kind, verb, resource);
}

export function assertMay(
  actor: Actor,
  kind: string,
  verb: string,
  resource: unknown,
  name: string,
): void {
  if (!may(actor, kind, verb, resource)) {
    throw accessDenied(`access denied: ${verb} on ${kind} ${name} is not allowed`);
  }
}

/**
 * The items the actor may read, in their order. Lists filter with this BEFORE they paginate, so
 * neither a page nor a total ever counts an item the actor cannot see.
 */
export function visible<T>(actor: Actor, kind: string, items: readonly T[]): T[] {
  return items.filter((item) => may(actor, kind, 'read', item));
}

/**
 * Roles go only to users (and bots) given by someone who could create those roles: otherwise
 * whoever may manage users could hand themselves any role through a new one.
 */
export function assertGrantable(actor: Actor, roles: readonly string[]): void {
  if (!actor.roleSet || roles.length === 0) return;
  const { refused } = canGrantRoles(actor.roleSet, roles);
  if (refused.length > 0) {
    throw accessDenied(
      `you cannot grant roles you could not create yourself: ${refused.join(', ')}`,
    );
  }
}
