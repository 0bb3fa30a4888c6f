import type { RoleSet } from '../../../access-control/rbac/index.js';
import type { Labelled } from '../../../access-control/rbac/role-set.js';

/** Who the proxy asks the cluster to treat the request as (Impersonate-User, Impersonate-Group). */
export interface Impersonation {
  user: string;
  groups: string[];
}

const impersonationHeader = /^impersonate-/;

/** Whether a request header asks the cluster for an identity: the proxy never passes these on. */
export const isImpersonationHeader = (name: string) => impersonationHeader.test(name);

/**
 * The identity a request runs as in the cluster: the roles' `kubernetes_users` and
 * `kubernetes_groups` on this cluster. The client may narrow them (`kubectl --as`, `--as-group`)
 * to values the roles allow, and must choose a user when the roles allow several; anything else
 * it asks for (another user or group, a uid, extra fields) is refused, never passed on. With no
 * user allowed, the Postern user's name is the Kubernetes user, as in the reference.
 */
export function chooseImpersonation(
  roleSet: RoleSet,
  postern: string,
  cluster: Labelled,
  /** The request's `headersDistinct`: each line of a header apart. */
  headers: NodeJS.Dict<string[]>,
): Impersonation | { refused: string } {
  const users = roleSet.kubeUsersFor(cluster);
  const groups = roleSet.kubeGroupsFor(cluster);
  if (users.length === 0 && groups.length === 0) {
    return {
      refused: 'your roles name no kubernetes_users or kubernetes_groups for this cluster',
    };
  }
  for (const name of Object.keys(headers)) {
    if (
      isImpersonationHeader(name) &&
      name !== 'impersonate-user' &&
      name !== 'impersonate-group'
    ) {
      return { refused: `the proxy does not pass on ${name}: it chooses who requests run as` };
    }
  }
  const askedUser = headers['impersonate-user'] ?? [];
  const askedGroups = headers['impersonate-group'] ?? [];
  if (askedUser.length > 1) return { refused: 'name one user to act as' };
  let user: string;
  if (askedUser.length === 1) {
    user = askedUser[0]!;
    if (!users.includes(user)) {
      return { refused: `your roles do not allow acting as Kubernetes user "${user}"` };
    }
  } else if (users.length > 1) {
    return {
      refused: `your roles allow several Kubernetes users (${users.join(', ')}): choose one with --as`,
    };
  } else {
    user = users[0] ?? postern;
  }
  const refusedGroup = askedGroups.find((group) => !groups.includes(group));
  if (refusedGroup !== undefined) {
    return { refused: `your roles do not allow acting in Kubernetes group "${refusedGroup}"` };
  }
  return { user, groups: askedGroups.length > 0 ? askedGroups : groups };
}
