import { Suspense } from 'react';
import { Outlet, useRouteError } from 'react-router';
import { InternalError } from './fallbacks/InternalError';
import { PageLoader } from '../components/PageLoader';
import { DocumentTitle } from './routeTitle';

/** The top of the route tree: document title for every page, and a loader for lazy layouts. */
export function RootFrame() {
  return (
    <>
      <DocumentTitle />
      <Suspense fallback={<PageLoader />}>
        <Outlet />
      </Suspense>
    </>
  );
}

/** Last line of defence for errors outside any page frame (layouts, the session shell). */
export function RouteError() {
  const error = useRouteError();
  const message = error instanceof Error ? error.message : String(error);
  return <InternalError message={message} onRetry={() => window.location.reload()} />;
}
