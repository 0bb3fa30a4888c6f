import { useEffect } from 'react';
import { isLockedError, subscribeApiErrors } from '../api';
import { useNotify } from '../components/Notifications';

export const lockedNoticeTitle = 'Access locked';

/**
 * A lock on the user (or one of their roles) turns every call into `403 locked: <message>`
 * (issue 4). Whichever page made the call, the user is told why, once. Signing out is the session
 * lifecycle's: its next status poll gets the same 403 and logs out (spec §4).
 */
export function LockedNotice() {
  const notify = useNotify();
  useEffect(
    () =>
      subscribeApiErrors((error) => {
        if (isLockedError(error)) notify({ title: lockedNoticeTitle, message: error.message });
      }),
    [notify],
  );
  return null;
}
