import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { Outlet } from 'react-router';
import { ApiError } from '../api';
import { NotificationsProvider } from '../components/Notifications';
import { LockedNotice } from './LockedNotice';
import { SessionGate } from './session/SessionGate';
import { UserContextGate } from './UserContextGate';

/** Client errors (4xx) will not change on a retry; server and network errors might. */
const retry = (failures: number, error: unknown) =>
  failures < 2 && !(error instanceof ApiError && error.status < 500);

/**
 * Everything private routes share, in its own lazy chunk so the public pages (login) do not
 * download it: the session gate, the data cache, notifications, and the user context with the
 * feature flags derived from it.
 */
export default function PrivateShell() {
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { retry, refetchOnWindowFocus: false } } }),
  );
  return (
    <SessionGate>
      <QueryClientProvider client={queryClient}>
        <NotificationsProvider>
          <LockedNotice />
          <UserContextGate>
            <Outlet />
          </UserContextGate>
        </NotificationsProvider>
      </QueryClientProvider>
    </SessionGate>
  );
}
