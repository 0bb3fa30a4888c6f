import { useUserContext } from '../../app/userContext';
import { editUserPath } from '../users/editUserLink';
import type { LoginsHelp } from './AddLoginsHint';

/**
 * How the signed-in user gets logins: their own edit dialog when they may edit users, otherwise
 * an admin. SSO users are written anew at every sign-in, so an edit there would not last.
 */
export function useLoginsHelp(newTab = false): LoginsHelp {
  const { userName, authType, userAcl } = useUserContext();
  const canEdit = authType === 'local' && userAcl.users.list && userAcl.users.edit;
  return canEdit ? { editHref: editUserPath(userName), newTab } : {};
}
