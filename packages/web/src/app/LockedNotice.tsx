import { useEffect } from 'react';
import { lockReasonOf, subscribeApiErrors } from '../api';
import { useNotify } from '../components/Notifications';

/** What the toast says: the lock's own message, without the server's `locked:` prefix. */
export const lockedNoticeText = (reason: string) => `Access locked: ${reason}`;

/**
 * A lock on the user (or one of their roles) turns every call into `403 locked: <message>`
 *. Whichever page made the call, the user is told why, once. Signing out is the session
 * lifecycle's: its next status poll gets the same 403 and logs out (spec §4), and the sign-in page
 * then shows the same message.
 */
export function LockedNotice() {
  const notify = useNotify();
  useEffect(
    () =>
      subscribeApiErrors((error) => {
        const reason = lockReasonOf(error);
        if (reason !== undefined) notify({ message: lockedNoticeText(reason) });
      }),
    [notify],
  );
  return null;
}
