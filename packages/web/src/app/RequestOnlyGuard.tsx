import type { UserContext } from '@postern/contracts';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { findRoute, routePath, type RouteName } from './routes';
import { useUserContext } from './userContext';

/** Pages a user whose roles say `request_access: always` may still open without a request. */
const openWithoutRequest: readonly RouteName[] = [
  'accessRequests',
  'newAccessRequest',
  'accessRequest',
  'account',
  'accountPassword',
  'accountMfaDevices',
  'settings',
  'support',
];

/** `always`: the base roles reach nothing, so until a request is assumed the user can only ask. */
export const mustRequestAccess = (context: UserContext) =>
  context.accessStrategy.type === 'always' && context.accessRequestId === '';

/**
 * Sends a user who must request access to New Access Request from any other page of the main
 * layout (after sign-in they land on `/web`, which comes here too).
 */
export function RequestOnlyGuard({ children }: { children: ReactNode }) {
  const context = useUserContext();
  const { pathname } = useLocation();
  const route = findRoute(pathname);
  if (mustRequestAccess(context) && !(route && openWithoutRequest.includes(route))) {
    return <Navigate to={routePath('newAccessRequest')} replace />;
  }
  return children;
}
