import type { HostUserGrant } from '../../ssh/host-user-extension.js';
import { concretePrincipals } from './access-checker.js';
import type { ExpandedRole } from './expand.js';

export type { HostUserGrant } from '../../ssh/host-user-extension.js';

/**
 * Host user creation (the reference's `create_host_user_mode`, `host_groups`, `host_sudoers`):
 * what the node service may do for a login that has no OS user yet. The proxy works it out for
 * the node and login it dials, and carries it in the one-session certificate it signs
 * (`postern-host-user@postern.dev`), so the node needs no roles of its own.
 */
type Labels = Readonly<Record<string, string>>;

/**
 * The grant of the roles that give this login on a node with these labels: none if one of them
 * says `off` or none says anything; `keep` if one says so (an account is never dropped against a
 * role's word), else `insecure-drop`. Groups and sudoers lines are those roles' allow lists less
 * every role's deny lists (`*` denies all).
 */
export function hostUserGrant(
  roles: readonly ExpandedRole[],
  labels: Labels,
  login: string,
): HostUserGrant | undefined {
  const granting = roles.filter((role) =>
    concretePrincipals([role], 'node', 'logins', labels).includes(login),
  );
  const modes = granting.map((role) => role.role.spec.options.create_host_user_mode);
  if (modes.includes('off') || modes.every((mode) => mode === undefined)) return undefined;
  const mode = modes.includes('keep') ? 'keep' : 'insecure-drop';
  const allowed = (field: 'host_groups' | 'host_sudoers') =>
    granting.flatMap((role) => role.role.spec.allow[field] ?? []);
  const denied = (field: 'host_groups' | 'host_sudoers') =>
    new Set(roles.flatMap((role) => role.role.spec.deny[field] ?? []));
  const kept = (field: 'host_groups' | 'host_sudoers') => {
    const refused = denied(field);
    if (refused.has('*')) return [];
    return [...new Set(allowed(field))].filter((value) => !refused.has(value));
  };
  return { mode, groups: kept('host_groups'), sudoers: kept('host_sudoers') };
}
