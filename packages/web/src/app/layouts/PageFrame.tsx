import { Suspense } from 'react';
import { Outlet, useLocation } from 'react-router';
import { ErrorBoundary } from '../../components/ErrorBoundary';
import { PageLoader } from '../../components/PageLoader';
import { InternalError } from '../fallbacks/InternalError';

/**
 * Where a page renders: lazy chunks suspend here and render errors stop here, so the layout
 * around stays usable. Moving to another path clears a caught error.
 */
export function PageFrame() {
  const { pathname } = useLocation();
  return (
    <ErrorBoundary
      resetKey={pathname}
      fallback={(error, retry) => <InternalError message={error.message} onRetry={retry} />}
    >
      <Suspense fallback={<PageLoader />}>
        <Outlet />
      </Suspense>
    </ErrorBoundary>
  );
}
