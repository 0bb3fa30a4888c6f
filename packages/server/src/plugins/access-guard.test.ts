import type { AclArea, AclVerb } from '@postern/contracts';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aclAreaKinds } from '../access-control/rbac/index.js';
import { installAccessGuard } from './access-guard.js';
import { createTestApp, type TestApp } from '../testing/app-harness.testkit.js';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(() => app.close());

/** A concrete URL for a route pattern, filling each parameter with something plausible. */
const concrete = (url: string) =>
  url
    .replace(':clusterId', 'test-cluster')
    .replace(/:(\w+)/g, 'x')
    .replace('*', 'x');

const payloadFor = (method: string) => (method === 'GET' || method === 'DELETE' ? undefined : {});

describe('every API route is guarded', () => {
  it('declares access on every route (the walk below is not empty)', () => {
    const urls = app.routes.map((route) => `${route.method} ${route.url}`);
    expect(urls).toEqual(
      expect.arrayContaining([
        'GET /v1/webapi/ping',
        'GET /v1/webapi/sites',
        'GET /v1/webapi/sites/:clusterId/events/search',
        'GET /v1/webapi/sites/:clusterId/events/search/sessions',
        'POST /v1/webapi/sessions/web',
        'POST /v1/webapi/sessions/web/renew',
        'DELETE /v1/webapi/sessions/web',
        'GET /v1/webapi/user/status',
        'POST /v1/webapi/mfa/login/begin',
        'POST /v1/webapi/mfa/login/finishsession',
        'POST /v1/webapi/users/password/token',
        'GET /v1/webapi/users/password/token/:tokenId',
        'PUT /v1/webapi/users/password/token',
        'POST /v1/webapi/mfa/token/:tokenId/registerchallenge',
        'PUT /v1/webapi/users/password',
        'POST /v1/webapi/users/privilege/token',
        'POST /v1/webapi/mfa/authenticatechallenge',
        'POST /v1/webapi/mfa/authenticatechallenge/password',
        'GET /v1/webapi/mfa/devices',
        'POST /v1/webapi/mfa/devices',
        'DELETE /v1/webapi/mfa/token/:tokenId/devices/:deviceName',
        'GET /v1/webapi/sites/:clusterId/context',
        'GET /v1/webapi/roles',
        'GET /v1/webapi/roles/:name',
        'POST /v1/webapi/roles',
        'PUT /v1/webapi/roles/:name',
        'DELETE /v1/webapi/roles/:name',
        'GET /v1/webapi/users',
        'GET /v1/webapi/users/:username',
        'POST /v1/webapi/users',
        'PUT /v1/webapi/users',
        'DELETE /v1/webapi/users/:username',
        'GET /v1/webapi/sites/:clusterId/locks',
        'PUT /v1/webapi/sites/:clusterId/locks',
        'DELETE /v1/webapi/sites/:clusterId/locks/:uuid',
        'GET /v1/webapi/sites/:clusterId/integrations',
        'POST /v1/webapi/sites/:clusterId/integrations',
        'GET /v1/webapi/sites/:clusterId/integrations/:name',
        'PUT /v1/webapi/sites/:clusterId/integrations/:name',
        'DELETE /v1/webapi/sites/:clusterId/integrations/:name',
        'POST /v1/webapi/sites/:clusterId/integrations/:name/test',
      ]),
    );
  });

  it('refuses a route that declares no access at start-up', async () => {
    const server = Fastify();
    const { sessions, access, lockWatcher } = app.services;
    installAccessGuard(server, { sessions, access, locks: lockWatcher }, ['/v1/webapi/']);
    server.get('/elsewhere', () => 'not guarded');
    server.register(async (child) => {
      child.get('/v1/webapi/undeclared', () => 'x');
    });
    await expect(server.ready()).rejects.toThrow(/GET \/v1\/webapi\/undeclared declares no access/);
  });

  it('answers 401 without a session on every protected route', async () => {
    const protectedRoutes = app.routes.filter((route) => route.access !== 'public');
    expect(protectedRoutes.length).toBeGreaterThan(2);
    for (const route of protectedRoutes) {
      const res = await app.server.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        payload: payloadFor(route.method),
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(401);
      expect(res.json().error.code).toBe('not_authenticated');
    }
  });

  it('answers 403 on every ACL-guarded route for a user whose roles lack the verb', async () => {
    const headers = await app.signIn([], 'nobody');
    const aclRoutes = app.routes.filter((route) => typeof route.access === 'object');
    expect(aclRoutes.length).toBeGreaterThan(1);
    for (const route of aclRoutes) {
      const res = await app.server.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        headers,
        payload: payloadFor(route.method),
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(res.json().error.code).toBe('access_denied');
    }
  });

  it('answers 403 on every ACL-guarded route for a role granting every other verb of the area', async () => {
    const ruleVerb = {
      list: 'list',
      read: 'read',
      edit: 'update',
      create: 'create',
      remove: 'delete',
    };
    const aclRoutes = app.routes.filter((route) => typeof route.access === 'object');
    for (const route of aclRoutes) {
      const { area, verb } = route.access as { area: AclArea; verb: AclVerb };
      const name = `all-but-${area}-${verb}`;
      const others = Object.entries(ruleVerb).filter(([acl]) => acl !== verb);
      const rule = { resources: [...aclAreaKinds[area]], verbs: others.map(([, v]) => v) };
      if (!(await app.services.roles.store.get(name))) {
        const content = JSON.stringify({
          kind: 'role',
          version: 'v7',
          metadata: { name },
          spec: { allow: { rules: [rule] } },
        });
        await app.services.roles.create(content, { name: 'test', roleSet: null });
      }
      const headers = await app.signIn([name], `user-${name}`);
      const res = await app.server.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        headers,
        payload: payloadFor(route.method),
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(res.json().error.message).toBe(`access denied: ${verb} on ${area} is not allowed`);
    }
  });

  it('answers 403 locked on every authenticated route but sign-out while a lock is in force', async () => {
    const headers = await app.signIn(['editor', 'access', 'auditor'], 'locked-out');
    await app.services.locks.create(
      { targets: { user: 'locked-out' }, message: 'walk' },
      { name: 'test', roleSet: null },
    );
    await new Promise((resolve) => setTimeout(resolve, 10));
    const isSignOut = (route: { method: string; url: string }) =>
      route.method === 'DELETE' && route.url === '/v1/webapi/sessions/web';
    // Sign-out last: it ends the session the walk uses.
    const guarded = app.routes
      .filter((route) => route.access !== 'public')
      .sort((a, b) => Number(isSignOut(a)) - Number(isSignOut(b)));
    for (const route of guarded) {
      const res = await app.server.inject({
        method: route.method as 'GET',
        url: concrete(route.url),
        headers,
        payload: payloadFor(route.method),
      });
      if (isSignOut(route)) expect(res.statusCode).toBe(200);
      else expect(res.json().error?.message, `${route.method} ${route.url}`).toBe('locked: walk');
    }
  });
});
