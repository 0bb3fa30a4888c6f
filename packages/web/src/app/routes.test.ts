import { describe, expect, it } from 'vitest';
import {
  appLauncherPath,
  databaseConsolePath,
  findRoute,
  kubeExecPath,
  matchKnownRoute,
  routePath,
  routerPattern,
  routeTable,
  withQuery,
} from './routes';

describe('routePath', () => {
  it('builds static and parameterised paths', () => {
    expect(routePath('root')).toBe('/web');
    expect(routePath('clusters')).toBe('/web/clusters');
    expect(routePath('clusterNodes', { clusterId: 'one' })).toBe('/web/cluster/one/nodes');
    expect(routePath('consoleConnect', { clusterId: 'c', serverId: 's1', login: 'root' })).toBe(
      '/web/cluster/c/console/node/s1/root',
    );
  });

  it('builds the SQL console’s path only once the database user and name are chosen', () => {
    const target = { clusterId: 'c', database: 'orders', dbUser: 'reader', dbName: 'app/db' };
    expect(databaseConsolePath(target)).toBe(
      '/web/cluster/c/databases/orders/console/reader/app%2Fdb',
    );
    expect(matchKnownRoute(databaseConsolePath(target)!)).toBe(true);
    expect(findRoute(databaseConsolePath(target)!)).toBe('databaseConsole');
    expect(databaseConsolePath({ ...target, dbUser: ' ' })).toBeUndefined();
    expect(databaseConsolePath({ ...target, dbName: '' })).toBeUndefined();
  });

  it('builds Exec in browser’s path once namespace, pod and container are chosen, the command in the query', () => {
    const target = {
      clusterId: 'c',
      name: 'prod',
      namespace: 'shop',
      pod: 'web-0',
      container: 'side/car',
      command: ' bash -l ',
    };
    const path = kubeExecPath(target)!;
    expect(path).toBe('/web/cluster/c/kubernetes/prod/exec/shop/web-0/side%2Fcar?command=bash+-l');
    expect(findRoute(path)).toBe('kubeExec');
    expect(kubeExecPath({ ...target, command: '' })).toBe(
      '/web/cluster/c/kubernetes/prod/exec/shop/web-0/side%2Fcar?command=%2Fbin%2Fsh',
    );
    expect(kubeExecPath({ ...target, namespace: '' })).toBeUndefined();
    expect(kubeExecPath({ ...target, pod: '' })).toBeUndefined();
    expect(kubeExecPath({ ...target, container: '' })).toBeUndefined();
  });

  it('encodes parameters so they cannot leave their segment', () => {
    expect(routePath('clusterNodes', { clusterId: 'a/b?c#d' })).toBe(
      '/web/cluster/a%2Fb%3Fc%23d/nodes',
    );
    expect(routePath('userInvite', { tokenId: '../x' })).toBe('/web/invite/..%2Fx');
  });

  it('throws on a missing required parameter', () => {
    const untyped = routePath as (
      name: string,
      params?: Record<string, string | undefined>,
    ) => string;
    expect(() => untyped('clusterNodes', {})).toThrow(
      /missing required route parameter "clusterId"/,
    );
    expect(() => untyped('player', { clusterId: 'c' })).toThrow(/"sid"/);
    expect(() => untyped('clusterNodes', { clusterId: '' })).toThrow(/clusterId/);
    expect(() => untyped('desktopSession')).toThrow(/clusterId/);
    // The types catch the same mistake at compile time.
    // @ts-expect-error clusterId is required
    expect(() => routePath('clusterNodes')).toThrow(/clusterId/);
  });

  it('drops missing optional parameters', () => {
    expect(routePath('assist')).toBe('/web/assist');
    expect(routePath('assist', { conversationId: 'c1' })).toBe('/web/assist/c1');
    expect(routePath('integrationEnroll')).toBe('/web/integrations/new');
    expect(routePath('integrationEnroll', { type: 'aws-oidc' })).toBe(
      '/web/integrations/new/aws-oidc',
    );
    expect(routePath('appLauncher', { fqdn: 'app.example.com' })).toBe(
      '/web/launch/app.example.com',
    );
  });

  it('refuses an optional parameter after a missing one (positions would shift)', () => {
    expect(() => routePath('appLauncher', { fqdn: 'f', publicAddr: 'p' })).toThrow(
      /needs "clusterId"/,
    );
  });

  it('adds query strings, leaving out empty values', () => {
    expect(
      routePath('player', { clusterId: 'c', sid: 's' }, { recordingType: 'ssh', durationMs: 1500 }),
    ).toBe('/web/cluster/c/session/s?recordingType=ssh&durationMs=1500');
    expect(routePath('consoleSession', { clusterId: 'c', sid: 's' }, { mode: undefined })).toBe(
      '/web/cluster/c/console/session/s',
    );
    expect(withQuery('/web/login', { redirect_uri: '/web/a?b=1' })).toBe(
      '/web/login?redirect_uri=%2Fweb%2Fa%3Fb%3D1',
    );
  });
});

describe('appLauncherPath', () => {
  it('is built only when fqdn, clusterId and publicAddr are all present', () => {
    expect(appLauncherPath({ fqdn: 'a.example.com', clusterId: 'c', publicAddr: 'a.pub' })).toBe(
      '/web/launch/a.example.com/c/a.pub',
    );
    expect(
      appLauncherPath({ fqdn: 'a', clusterId: 'c', publicAddr: 'p', arn: 'arn:aws:iam::1:role/x' }),
    ).toBe('/web/launch/a/c/p/arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fx');
    expect(appLauncherPath({ fqdn: 'a', clusterId: 'c' })).toBeUndefined();
    expect(appLauncherPath({ fqdn: 'a', publicAddr: 'p' })).toBeUndefined();
    expect(appLauncherPath({ clusterId: 'c', publicAddr: 'p' })).toBeUndefined();
  });
});

describe('matchKnownRoute', () => {
  it('accepts paths that match a pattern exactly, ignoring query and hash', () => {
    expect(findRoute('/web')).toBe('root');
    expect(findRoute('/web/clusters?x=1#y')).toBe('clusters');
    expect(findRoute('/web/cluster/one/nodes')).toBe('clusterNodes');
    expect(findRoute('/web/cluster/one/resources')).toBe('clusterResources');
    expect(findRoute('/web/cluster/one/session/sid1?recordingType=ssh')).toBe('player');
    expect(findRoute('/web/msg/error/login/callback')).toBe('loginErrorCallback');
    expect(findRoute('/web/reset/tok/continue')).toBe('userResetContinue');
    expect(matchKnownRoute('/web/assist')).toBe(true);
    expect(matchKnownRoute('/web/assist/c1')).toBe(true);
    expect(matchKnownRoute('/web/launch/f/c/p/arn')).toBe(true);
    expect(matchKnownRoute('/web/launch/f')).toBe(true);
  });

  it('rejects unknown paths, extra segments and anything that is not a local path', () => {
    expect(matchKnownRoute('/web/nope')).toBe(false);
    expect(matchKnownRoute('/web/cluster/one/nodes/extra')).toBe(false);
    expect(matchKnownRoute('/web/clusters/sub')).toBe(false); // exact match, even for non-exact routes
    expect(matchKnownRoute('/web/launch/f/c/p/arn/more')).toBe(false);
    expect(matchKnownRoute('/other')).toBe(false);
    expect(matchKnownRoute('//evil.example/web')).toBe(false);
    expect(matchKnownRoute('/\\evil.example/web')).toBe(false);
    expect(matchKnownRoute('https://evil.example/web')).toBe(false);
    expect(matchKnownRoute('')).toBe(false);
  });
});

describe('route table flags', () => {
  it('marks full-page, public and non-exact routes', () => {
    const flagged = (key: 'fullPage' | 'public' | 'exact') =>
      Object.entries(routeTable)
        .filter(([, spec]) => key in spec)
        .map(([name]) => name)
        .sort();
    expect(flagged('exact')).toEqual(['clusters', 'integrationEnroll', 'sso']);
    expect(flagged('public')).toEqual(
      [
        'login',
        'loginError',
        'loginErrorCallback',
        'loginErrorLegacy',
        'loginErrorUnauthorized',
        'loginSuccess',
        'userInvite',
        'userInviteContinue',
        'userReset',
        'userResetContinue',
      ].sort(),
    );
    expect(flagged('fullPage')).toEqual(
      [
        'appLauncher',
        'console',
        'consoleConnect',
        'consoleNodes',
        'consoleSession',
        'databaseConsole',
        'desktopSession',
        'headlessSso',
        'kubeExec',
        'player',
      ].sort(),
    );
    expect(routerPattern('clusters')).toBe('/web/clusters/*');
    expect(routerPattern('users')).toBe('/web/users');
  });
});
