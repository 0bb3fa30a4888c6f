import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { useNotify } from '../../components/Notifications';
import { editUserParam } from './editUserLink';
import type { User } from './makeUser';

/**
 * `?edit=NAME` (the Servers page's "add logins" link): once the list is in, opens that user's
 * edit dialog, then drops the query so that closing the dialog is final and a reload does not
 * open it again.
 */
export function useEditFromLink(
  users: User[] | undefined,
  canEdit: boolean,
  open: (user: User) => void,
) {
  const [params, setParams] = useSearchParams();
  const notify = useNotify();
  const wanted = params.get(editUserParam);
  // Once per link: until the URL drops the query, renders must not open the dialog again.
  const handled = useRef<string | null>(null);
  useEffect(() => {
    if (wanted === null) {
      handled.current = null;
      return;
    }
    if (!users || handled.current === wanted) return;
    handled.current = wanted;
    const user = users.find((u) => u.name === wanted);
    if (!user) notify({ title: 'No such user', message: `There is no user named "${wanted}".` });
    else if (!canEdit) notify({ title: 'Not allowed', message: 'You may not edit users.' });
    // As the table offers no Edit for them: each sign-in writes them anew from the provider.
    else if (!user.isLocal) {
      notify({
        title: 'Not editable here',
        message: `${user.name} signs in with single sign-on; their logins come from the identity provider.`,
      });
    } else open(user);
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        next.delete(editUserParam);
        return next;
      },
      { replace: true },
    );
  }, [wanted, users, canEdit, open, notify, setParams]);
}
