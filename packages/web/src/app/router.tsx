import { lazy } from 'react';
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { LoginFailed, type LoginFailure } from './fallbacks/LoginFailed';
import { LoginSuccess } from './fallbacks/LoginSuccess';
import { NotFound } from './fallbacks/NotFound';
import { FeatureGuard } from './FeatureGuard';
import { features, isImplemented, type Feature } from './features';
import { PageFrame } from './layouts/PageFrame';
import { ClusterRedirect } from './ClusterRedirect';
import { RootFrame, RouteError } from './RootFrame';
import { RootRedirect } from './RootRedirect';
import type { RouteHandle } from './routeTitle';
import { routeTable, routerPattern, type RouteName } from './routes';

// Private and heavy parts load on demand, so the public pages (login) stay small.
const PrivateShell = lazy(() => import('./PrivateShell'));
const MainLayout = lazy(() => import('./layouts/MainLayout'));
const LoginPage = lazy(() =>
  import('../features/login/LoginPage').then((m) => ({ default: m.LoginPage })),
);
const UserTokenPage = lazy(() =>
  import('../features/invite/UserTokenPage').then((m) => ({ default: m.UserTokenPage })),
);

const rootPrefix = `${routeTable.root.path}/`;
/** Child routes of /web are relative: `/web/clusters/*` → `clusters/*`. */
const relative = (name: RouteName) => routerPattern(name).slice(rootPrefix.length);
const handle = (title: string): RouteHandle => ({ title });

/** Each login error route and what its page says went wrong. */
const loginErrorRoutes: [RouteName, LoginFailure][] = [
  ['loginErrorLegacy', 'login'],
  ['loginError', 'login'],
  ['loginErrorCallback', 'callback'],
  ['loginErrorUnauthorized', 'unauthorized'],
];
/**
 * Invite and reset (spec §2: one screen, two titles). The screen is the parent route, so it keeps
 * its state (the new password) when the user moves on to `/continue`, which is its child.
 */
function userTokenRoute(
  kind: 'invite' | 'reset',
  start: RouteName,
  next: RouteName,
  title: string,
): RouteObject {
  return {
    path: relative(start),
    element: <UserTokenPage kind={kind} />,
    handle: handle(title),
    children: [
      { index: true },
      { path: routeTable[next].path.slice(routeTable[start].path.length + 1) },
    ],
  };
}

function featureRoute(feature: Feature & { page: NonNullable<Feature['page']> }): RouteObject {
  const Page = feature.page;
  return {
    path: relative(feature.route),
    handle: handle(feature.title),
    element: (
      <FeatureGuard feature={feature}>
        <Page />
      </FeatureGuard>
    ),
  };
}

/** The route tree (spec §2): public pages, then private ones behind the session gate. */
export function appRoutes(registry: readonly Feature[] = features): RouteObject[] {
  const implemented = registry.filter(isImplemented);
  const fullPage = (f: Feature) => 'fullPage' in routeTable[f.route];
  const notFound: RouteObject = { path: '*', element: <NotFound />, handle: handle('Not Found') };
  return [
    {
      path: routeTable.root.path,
      element: <RootFrame />,
      errorElement: <RouteError />,
      children: [
        {
          element: <PageFrame />,
          children: [
            { path: relative('login'), element: <LoginPage />, handle: handle('Sign in') },
            {
              path: relative('loginSuccess'),
              element: <LoginSuccess />,
              handle: handle('Success'),
            },
            ...loginErrorRoutes.map(([name, failure]) => ({
              path: relative(name),
              element: <LoginFailed failure={failure} />,
              handle: handle('Login Unsuccessful'),
            })),
            userTokenRoute('invite', 'userInvite', 'userInviteContinue', 'Invite'),
            userTokenRoute('reset', 'userReset', 'userResetContinue', 'Password Reset'),
            { ...notFound, path: 'msg/*' },
          ],
        },
        {
          element: <PrivateShell />,
          children: [
            { element: <PageFrame />, children: implemented.filter(fullPage).map(featureRoute) },
            {
              element: <MainLayout />,
              children: [
                { index: true, element: <RootRedirect />, handle: handle('Postern') },
                {
                  path: relative('cluster'),
                  element: <ClusterRedirect />,
                  handle: handle('Postern'),
                },
                ...implemented.filter((f) => !fullPage(f)).map(featureRoute),
                notFound,
              ],
            },
          ],
        },
      ],
    },
    // The server only serves the console under /web; anything else belongs there too.
    { path: '*', element: <Navigate to={routeTable.root.path} replace /> },
  ];
}

export function createAppRouter() {
  return createBrowserRouter(appRoutes());
}
