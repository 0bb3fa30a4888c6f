import type { RoleMapping } from '@postern/contracts';
import { matchesAny } from '../../access-control/rbac/labels.js';

/**
 * The leaf roles a root user gets: every `local` of each line whose `remote` (a name, `*`, a
 * glob or `^regex$`) matches one of the user's root roles. No match, no roles: no access.
 */
export function mapRoles(roleMap: readonly RoleMapping[], rootRoles: readonly string[]): string[] {
  const local = new Set<string>();
  for (const line of roleMap) {
    if (rootRoles.some((role) => matchesAny([line.remote], role))) {
      for (const role of line.local) local.add(role);
    }
  }
  return [...local].sort();
}
