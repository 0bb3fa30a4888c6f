import type { RoleSet } from './role-set.js';

export interface GrantCheck {
  allowed: boolean;
  /** The requested roles the actor may not grant, in the order asked. */
  refused: string[];
}

/**
 * "A user cannot grant anyone a role they could not create themselves." A role is grantable when
 * the actor may create roles (a `role` rule with `create`, its `where` evaluated against
 * `{kind: 'role', metadata: {name}}`) — such an actor could write that role anyway — or when the
 * actor holds the role already, so granting it hands out nothing the actor does not have.
 * Whether the actor may create or update the user at all is the route's own check.
 */
export function canGrantRoles(actor: RoleSet, roleNames: readonly string[]): GrantCheck {
  const refused = roleNames.filter(
    (name) =>
      !actor.roleNames.includes(name) &&
      !actor.checkRule('role', 'create', { kind: 'role', metadata: { name } }),
  );
  return { allowed: refused.length === 0, refused };
}
