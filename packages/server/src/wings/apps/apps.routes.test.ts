import {
  apiPaths,
  appListResponseSchema,
  appResourceSchema,
  createAppSessionResponseSchema,
  labelClause,
  type AppResourceInput,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { inviteUser, nextTotp } from '../../testing/identity.testkit.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { createSessionMfaRole } from '../../testing/roles.testkit.js';

let app: TestApp;
let everyApp: Record<string, string>;
let prodOnly: Record<string, string>;
let serversOnly: Record<string, string>;
const listUrl = apiPaths.apps('test-cluster');

const appResource = (input: AppResourceInput) => appResourceSchema.parse(input);
const configApps = [
  appResource({
    kind: 'app',
    metadata: { name: 'grafana', description: 'Dashboards', labels: { env: 'prod' } },
    spec: { uri: 'http://127.0.0.1:1' },
  }),
  appResource({
    kind: 'app',
    metadata: { name: 'notebook', description: 'Jupyter', labels: { env: 'dev' } },
    spec: { uri: 'http://127.0.0.1:2', public_addr: 'jupyter.example.test' },
  }),
  appResource({
    kind: 'app',
    metadata: { name: 'cache', description: 'Redis', labels: { env: 'prod' } },
    spec: { uri: 'tcp://127.0.0.1:6379' },
  }),
];

beforeAll(async () => {
  app = await createTestApp({ apps: configApps });
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      hostActor('test'),
    );
  await role('apps-all', { app_labels: { '*': '*' } });
  await role('apps-prod', { app_labels: { env: 'prod' } });
  await role('servers-only', { node_labels: { '*': '*' }, logins: ['root'] });
  everyApp = await app.signIn(['apps-all'], 'alice');
  prodOnly = await app.signIn(['apps-prod'], 'pat');
  serversOnly = await app.signIn(['servers-only'], 'sam');
});
afterAll(() => app.close());

const names = (body: unknown) => appListResponseSchema.parse(body).items.map((item) => item.name);

describe('GET /sites/{clusterId}/apps', () => {
  it('needs a session (401) and app access (403)', async () => {
    expect((await app.server.inject({ url: listUrl })).statusCode).toBe(401);
    const denied = await app.server.inject({ url: listUrl, headers: serversOnly });
    expect(denied.statusCode).toBe(403);
  });

  it('lists what the roles reach, filtered before paging, with the address each is served at', async () => {
    const all = await app.server.inject({ url: listUrl, headers: everyApp });
    expect(all.statusCode).toBe(200);
    const body = appListResponseSchema.parse(all.json());
    expect(body.items.map((item) => item.name)).toEqual(['cache', 'grafana', 'notebook']);
    expect(body.totalCount).toBe(3);
    const grafana = body.items.find((item) => item.name === 'grafana')!;
    expect(grafana).toMatchObject({
      publicAddr: 'grafana.proxy.test',
      fqdn: 'grafana.proxy.test',
      clusterId: 'test-cluster',
      isTcp: false,
      labels: [{ name: 'env', value: 'prod' }],
    });
    expect(body.items.find((item) => item.name === 'notebook')!.publicAddr).toBe(
      'jupyter.example.test',
    );
    expect(body.items.find((item) => item.name === 'cache')!.isTcp).toBe(true);

    const prod = await app.server.inject({ url: listUrl, headers: prodOnly });
    expect(names(prod.json())).toEqual(['cache', 'grafana']);
    expect(appListResponseSchema.parse(prod.json()).totalCount).toBe(2);
  });

  it('searches, filters by label, sorts and pages', async () => {
    const get = (query: Record<string, string>) =>
      app.server.inject({ url: listUrl, query, headers: everyApp });
    expect(names((await get({ search: 'jupyter' })).json())).toEqual(['notebook']);
    expect(names((await get({ query: labelClause('env', 'dev') })).json())).toEqual(['notebook']);
    expect(names((await get({ sort: 'description:desc' })).json())).toEqual([
      'cache',
      'notebook',
      'grafana',
    ]);
    const first = appListResponseSchema.parse((await get({ limit: '2' })).json());
    expect(first.items.map((item) => item.name)).toEqual(['cache', 'grafana']);
    const second = await get({ limit: '2', startKey: first.startKey });
    expect(names(second.json())).toEqual(['notebook']);
    expect((await get({ query: 'nonsense(' })).statusCode).toBe(400);
    expect((await get({ sort: 'uri:asc' })).statusCode).toBe(400);
  });
});

describe('the launcher', () => {
  const launch = (body: object, headers: Record<string, string>) =>
    app.server.inject({
      method: 'POST',
      url: apiPaths.appSession,
      payload: body,
      headers: { ...headers, ...app.csrf.headers, cookie: `${headers.cookie}; ${app.csrf.cookie}` },
    });

  it('needs a session (401) and app access (403)', async () => {
    const anonymous = await app.server.inject({
      method: 'POST',
      url: apiPaths.appSession,
      payload: { fqdn: 'grafana.proxy.test' },
    });
    expect(anonymous.statusCode).toBe(401);
    expect((await launch({ fqdn: 'grafana.proxy.test' }, serversOnly)).statusCode).toBe(403);
  });

  it('hands out a single-use exchange on the app’s own origin, keeping the path asked for', async () => {
    const res = await launch(
      { fqdn: 'grafana.proxy.test', cluster_name: 'test-cluster', path: '/d/abc?from=now-1h' },
      everyApp,
    );
    expect(res.statusCode, res.body).toBe(200);
    const answer = createAppSessionResponseSchema.parse(res.json());
    const url = new URL(answer.redirectUrl);
    expect(url.origin).toBe('https://grafana.proxy.test:3080');
    expect(url.pathname).toBe('/x-postern-auth');
    expect(url.searchParams.get('state')).toBe(answer.value);
    expect(url.searchParams.get('path')).toBe('/d/abc?from=now-1h');
  });

  it('refuses an app the roles do not reach (403), an unknown one (404) and a TCP app (400)', async () => {
    const hidden = await launch({ fqdn: 'jupyter.example.test' }, prodOnly);
    expect(hidden.statusCode).toBe(403);
    expect((await launch({ fqdn: 'nope.proxy.test' }, everyApp)).statusCode).toBe(404);
    const tcp = await launch({ fqdn: 'cache.proxy.test' }, everyApp);
    expect(tcp.statusCode).toBe(400);
    expect(tcp.json().error.message).toMatch(/postern proxy app cache/);
    expect(
      (await launch({ fqdn: 'grafana.proxy.test', cluster_name: 'other' }, everyApp)).statusCode,
    ).toBe(404);
  });

  it('asks for a per-session MFA check when the roles want one, and launches on its answer', async () => {
    await createSessionMfaRole(app);
    const tina = await inviteUser(app, 'tina', { roles: ['apps-all', 'checked'], device: 'totp' });
    const grafana = { fqdn: 'grafana.proxy.test' };
    const unchecked = await launch(grafana, tina.headers);
    expect(unchecked.statusCode).toBe(403);
    expect(unchecked.json().error.code).toBe('mfa_required');

    const challenge = (resource: string, headers: Record<string, string>) =>
      app.server.inject({
        method: 'POST',
        url: apiPaths.sessionMfaChallenge,
        payload: { resource },
        headers: {
          ...headers,
          ...app.csrf.headers,
          cookie: `${headers.cookie}; ${app.csrf.cookie}`,
        },
      });
    const asked = await challenge('app:grafana.proxy.test', tina.headers);
    expect(asked.json()).toEqual({ totp_challenge: true });
    expect((await challenge('grafana', tina.headers)).statusCode).toBe(400);
    const anonymous = await app.server.inject({
      method: 'POST',
      url: apiPaths.sessionMfaChallenge,
      payload: { resource: 'app:grafana.proxy.test' },
    });
    expect(anonymous.statusCode).toBe(401);

    const wrong = await launch(
      { ...grafana, mfa_response: { totp_code: '00000000' } },
      tina.headers,
    );
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().error.message).toMatch(/the MFA check for this session failed/);
    const code = nextTotp(app, tina.totpSecret!);
    const launched = await launch({ ...grafana, mfa_response: { totp_code: code } }, tina.headers);
    expect(launched.statusCode, launched.body).toBe(200);
    expect(createAppSessionResponseSchema.parse(launched.json()).fqdn).toBe('grafana.proxy.test');
    // The code was used: the next launch needs another.
    const again = await launch({ ...grafana, mfa_response: { totp_code: code } }, tina.headers);
    expect(again.statusCode).toBe(403);
  });

  it('resolves an app for the launcher only when the caller reaches it', async () => {
    const path = apiPaths.resolveApp('grafana.proxy.test', 'test-cluster', 'grafana.proxy.test');
    expect((await app.server.inject({ url: path })).statusCode).toBe(401);
    expect((await app.server.inject({ url: path, headers: serversOnly })).statusCode).toBe(403);
    const ok = await app.server.inject({ url: path, headers: prodOnly });
    expect(ok.json()).toEqual({
      fqdn: 'grafana.proxy.test',
      clusterId: 'test-cluster',
      publicAddr: 'grafana.proxy.test',
      name: 'grafana',
    });
    const hidden = apiPaths.resolveApp('jupyter.example.test');
    expect((await app.server.inject({ url: hidden, headers: prodOnly })).statusCode).toBe(404);
  });
});

describe('/.well-known/jwks.json', () => {
  it('publishes the public key that signs app JWTs, to anyone', async () => {
    const res = await app.server.inject({ url: '/.well-known/jwks.json' });
    expect(res.statusCode).toBe(200);
    const { keys } = res.json() as { keys: Record<string, string>[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(keys[0]).not.toHaveProperty('d');
  });
});
