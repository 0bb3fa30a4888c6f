import { matchPath } from 'react-router';
import type { RequiredParamName, RouteParams, RouteQuery } from './routeTypes';

/**
 * The console's route table (spec §2): the one place that knows every path under /web.
 * Patterns use react-router syntax (`:param`, `:param?`). The router, the navigation guard
 * (`matchKnownRoute`) and every link builder read from here, so a path is spelled once.
 */
interface RouteSpec {
  readonly path: string;
  /** Non-exact routes own their subtree (the page routes further below itself). */
  readonly exact?: false;
  /** Rendered without the main layout (no side or top navigation). */
  readonly fullPage?: true;
  /** Reachable without a session. */
  readonly public?: true;
}

export const routeTable = {
  root: { path: '/web' },
  discover: { path: '/web/discover' },
  assist: { path: '/web/assist/:conversationId?' },
  support: { path: '/web/support' },
  settings: { path: '/web/settings' },
  account: { path: '/web/account' },
  accountPassword: { path: '/web/account/password' },
  accountMfaDevices: { path: '/web/account/twofactor' },
  roles: { path: '/web/roles' },
  sso: { path: '/web/sso', exact: false },
  users: { path: '/web/users' },
  trust: { path: '/web/trust' },
  clusters: { path: '/web/clusters', exact: false },
  cluster: { path: '/web/cluster/:clusterId' },
  /** Every kind of resource the user may reach, in one list. */
  clusterResources: { path: '/web/cluster/:clusterId/resources' },
  clusterApps: { path: '/web/cluster/:clusterId/apps' },
  clusterAudit: { path: '/web/cluster/:clusterId/audit' },
  clusterNodes: { path: '/web/cluster/:clusterId/nodes' },
  clusterSessions: { path: '/web/cluster/:clusterId/sessions' },
  clusterRecordings: { path: '/web/cluster/:clusterId/recordings' },
  clusterDatabases: { path: '/web/cluster/:clusterId/databases' },
  clusterDesktops: { path: '/web/cluster/:clusterId/desktops' },
  clusterKubernetes: { path: '/web/cluster/:clusterId/kubernetes' },
  /** A desktop session (full page), as one login. */
  desktopSession: {
    path: '/web/cluster/:clusterId/desktops/:desktopName/:username',
    fullPage: true,
  },
  console: { path: '/web/cluster/:clusterId/console', fullPage: true },
  consoleNodes: { path: '/web/cluster/:clusterId/console/nodes', fullPage: true },
  consoleConnect: { path: '/web/cluster/:clusterId/console/node/:serverId/:login', fullPage: true },
  /** Query: optional `mode`. */
  consoleSession: { path: '/web/cluster/:clusterId/console/session/:sid', fullPage: true },
  /** The SQL console of a PostgreSQL database, as one database user on one database. */
  databaseConsole: {
    path: '/web/cluster/:clusterId/databases/:database/console/:dbUser/:dbName',
    fullPage: true,
  },
  /** Exec in browser: a terminal in one container of a pod. Query: `command`. */
  kubeExec: {
    path: '/web/cluster/:clusterId/kubernetes/:name/exec/:namespace/:pod/:container',
    fullPage: true,
  },
  /** Query: `recordingType`, optional `durationMs`. */
  player: { path: '/web/cluster/:clusterId/session/:sid', fullPage: true },
  appLauncher: { path: '/web/launch/:fqdn/:clusterId?/:publicAddr?/:arn?', fullPage: true },
  headlessSso: { path: '/web/headless/:requestId', fullPage: true },
  accessRequests: { path: '/web/requests' },
  /** Before `accessRequest`, so the exact match of `/web/requests/new` names this route. */
  newAccessRequest: { path: '/web/requests/new' },
  accessRequest: { path: '/web/requests/:requestId' },
  integrations: { path: '/web/integrations' },
  integrationEnroll: { path: '/web/integrations/new/:type?', exact: false },
  locks: { path: '/web/locks' },
  bots: { path: '/web/bots' },
  tokens: { path: '/web/tokens' },
  newLock: { path: '/web/locks/new' },
  login: { path: '/web/login', public: true },
  loginSuccess: { path: '/web/msg/info/login_success', public: true },
  loginErrorLegacy: { path: '/web/msg/error/login_failed', public: true },
  loginError: { path: '/web/msg/error/login', public: true },
  loginErrorCallback: { path: '/web/msg/error/login/callback', public: true },
  loginErrorUnauthorized: { path: '/web/msg/error/login/auth', public: true },
  userInvite: { path: '/web/invite/:tokenId', public: true },
  userInviteContinue: { path: '/web/invite/:tokenId/continue', public: true },
  userReset: { path: '/web/reset/:tokenId', public: true },
  userResetContinue: { path: '/web/reset/:tokenId/continue', public: true },
} as const satisfies Record<string, RouteSpec>;

export type RouteName = keyof typeof routeTable;
export type RoutePattern<N extends RouteName> = (typeof routeTable)[N]['path'];

type ParamsArgs<P extends string> = [RequiredParamName<P>] extends [never]
  ? [params?: RouteParams<P>, query?: RouteQuery]
  : [params: RouteParams<P>, query?: RouteQuery];

/**
 * Builds the path of a route. Parameters are URL-encoded so a value can never break out of its
 * segment; a missing required parameter throws (spec §5) instead of producing a wrong link.
 */
export function routePath<N extends RouteName>(
  name: N,
  ...[params, query]: ParamsArgs<RoutePattern<N>>
): string {
  const values: Record<string, string | undefined> = params ?? {};
  return withQuery(fillPattern(routeTable[name].path, values), query);
}

export function fillPattern(pattern: string, params: Record<string, string | undefined>): string {
  const out: string[] = [];
  let skipped: string | undefined;
  for (const segment of pattern.split('/')) {
    if (!segment.startsWith(':')) {
      out.push(segment);
      continue;
    }
    const optional = segment.endsWith('?');
    const name = segment.slice(1, optional ? -1 : undefined);
    const value = params[name];
    if (value === undefined || value === null || value === '') {
      if (!optional) throw new Error(`missing required route parameter "${name}" for ${pattern}`);
      skipped ??= name;
      continue;
    }
    // Optional segments are positional: a value after a gap would land in the wrong slot.
    if (skipped) throw new Error(`route parameter "${name}" needs "${skipped}" in ${pattern}`);
    out.push(encodeURIComponent(value));
  }
  return out.join('/');
}

export function withQuery(path: string, query?: RouteQuery): string {
  if (!query) return path;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `${path}?${text}` : path;
}

/** The app launcher link exists only when fqdn, clusterId and publicAddr are all known (spec §2). */
export function appLauncherPath(app: {
  fqdn?: string;
  clusterId?: string;
  publicAddr?: string;
  arn?: string;
}): string | undefined {
  const { fqdn, clusterId, publicAddr, arn } = app;
  if (!fqdn || !clusterId || !publicAddr) return undefined;
  return routePath('appLauncher', { fqdn, clusterId, publicAddr, arn });
}

/**
 * The SQL console of a database as one database user on one database name; none until both are
 * chosen (the console opens a session at once and cannot ask).
 */
export function databaseConsolePath(target: {
  clusterId: string;
  database: string;
  dbUser: string;
  dbName: string;
}): string | undefined {
  const dbUser = target.dbUser.trim();
  const dbName = target.dbName.trim();
  if (!target.clusterId || !target.database || !dbUser || !dbName) return undefined;
  return routePath('databaseConsole', {
    clusterId: target.clusterId,
    database: target.database,
    dbUser,
    dbName,
  });
}

/** The shell `kubectl exec` runs when no command is given, and Exec in browser's default. */
export const defaultKubeExecCommand = '/bin/sh';

/**
 * Exec in browser: a terminal in one container of a pod of a Kubernetes cluster, running
 * `command` (in the query string); none until the namespace, pod and container are chosen (the
 * page opens the session at once and cannot ask).
 */
export function kubeExecPath(target: {
  clusterId: string;
  name: string;
  namespace: string;
  pod: string;
  container: string;
  command: string;
}): string | undefined {
  const { clusterId, name, namespace, pod, container } = target;
  if (!clusterId || !name || !namespace || !pod || !container) return undefined;
  return routePath(
    'kubeExec',
    { clusterId, name, namespace, pod, container },
    { command: target.command.trim() || defaultKubeExecCommand },
  );
}

/** The pathname of a same-origin path (`/x?y#z` → `/x`), or undefined for anything else. */
function pathnameOf(url: string): string | undefined {
  if (!url.startsWith('/') || url.startsWith('//') || url.startsWith('/\\')) return undefined;
  return url.split(/[?#]/, 1)[0];
}

/** The name of the route whose pattern matches the path exactly (query and hash ignored). */
export function findRoute(url: string): RouteName | undefined {
  const pathname = pathnameOf(url);
  if (pathname === undefined) return undefined;
  const names = Object.keys(routeTable) as RouteName[];
  return names.find((name) => matchPath({ path: routeTable[name].path, end: true }, pathname));
}

/** Spec §5: a route is accepted only if it matches a known pattern exactly. */
export function matchKnownRoute(url: string): boolean {
  return findRoute(url) !== undefined;
}

/** The pattern a router should mount for a route: non-exact routes own their subtree. */
export function routerPattern(name: RouteName): string {
  const spec: RouteSpec = routeTable[name];
  return spec.exact === false ? `${spec.path}/*` : spec.path;
}
