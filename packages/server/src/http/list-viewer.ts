import type { Actor } from '../access-control/access/actor.js';
import type { RoleSet } from '../access-control/rbac/index.js';

/** The caller's search_as_roles as one RoleSet, the search audited (AccessRequestsService). */
export type SearchAs = (actor: Actor, resourceType: string) => Promise<RoleSet>;

/**
 * Whose eyes a resource list is seen with: the caller's roles, or with `searchAsRoles=yes` the
 * roles they may request resources as (reference §1.5), for building an access request.
 */
export async function listViewer(
  actor: Actor,
  searchAsRoles: string | undefined,
  searchAs: SearchAs,
  resourceType: string,
): Promise<RoleSet | null> {
  return searchAsRoles === 'yes' ? searchAs(actor, resourceType) : actor.roleSet;
}
