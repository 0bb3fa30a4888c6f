import { routePath } from '../../app/routes';

/** The Users page's query that opens one user's edit dialog: `/web/users?edit=NAME`. */
export const editUserParam = 'edit';

/** A link to Manage Users with this user's edit dialog open (where logins are added). */
export const editUserPath = (name: string) =>
  routePath('users', undefined, { [editUserParam]: name });
