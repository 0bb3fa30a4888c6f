import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestSchemas, testPostgresUrl } from './backend/testing/postgres.testkit.js';
import { createTestApp, type TestApp } from './testing/app-harness.testkit.js';

/**
 * Two app instances on one PostgreSQL schema stand for two `postern start` processes behind a
 * load balancer: nothing that matters may live in only one process's memory.
 */
const schemas = new TestSchemas();
let first: TestApp;
let second: TestApp;

beforeAll(async () => {
  await schemas.connect();
  const schema = schemas.newName();
  const storage = { type: 'postgres' as const, url: testPostgresUrl, schema };
  first = await createTestApp({ storage, audit: storage });
  second = await createTestApp({ storage, audit: storage });
});
afterAll(async () => {
  await first?.close();
  await second?.close();
  await schemas.dropAll();
});

describe('two proxies on one PostgreSQL', () => {
  it('accept a web session created by either of them', async () => {
    const headers = await first.signIn(['editor']);
    const res = await second.server.inject({ url: '/v1/webapi/sites', headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()[0].name).toBe('test-cluster');
  });

  it('search the audit events that either of them emitted', async () => {
    const time = new Date();
    await first.audit.emit({ event: 'user.login', code: 'T1000I', user: 'pat', time });
    const headers = await second.signIn(['auditor']);
    const from = new Date(time.getTime() - 1000).toISOString();
    const to = new Date(time.getTime() + 1000).toISOString();
    const res = await second.server.inject({
      url: `/v1/webapi/sites/test-cluster/events/search?from=${from}&to=${to}&include=user.login`,
      headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().events).toEqual([expect.objectContaining({ user: 'pat', code: 'T1000I' })]);
  });

  it('enforce a lock created through the other within a second (watch)', async () => {
    const kim = await first.signIn(['access'], 'kim');
    const sites = () => first.server.inject({ url: '/v1/webapi/sites', headers: kim });
    expect((await sites()).statusCode).toBe(200);
    const admin = await second.signIn(['editor'], 'root');
    const created = await second.server.inject({
      method: 'PUT',
      url: '/v1/webapi/sites/test-cluster/locks',
      headers: admin,
      payload: { targets: { user: 'kim' }, message: 'incident 42' },
    });
    expect(created.statusCode, created.body).toBe(200);
    const res = await eventually(sites, (r) => r.statusCode === 403);
    expect(res.json().error.message).toBe('locked: incident 42');
  });

  it('apply a role created through the other to sessions on this one', async () => {
    const pat = await first.signIn(['lock-viewer'], 'pat');
    const locks = () =>
      first.server.inject({ url: '/v1/webapi/sites/test-cluster/locks', headers: pat });
    expect((await locks()).statusCode).toBe(403);
    const content = `kind: role
version: v7
metadata: {name: lock-viewer}
spec:
  allow:
    rules: [{resources: [lock], verbs: [list, read]}]
`;
    const admin = await second.signIn(['editor'], 'root');
    const res = await second.server.inject({
      method: 'POST',
      url: '/v1/webapi/roles',
      headers: admin,
      payload: { content },
    });
    expect(res.statusCode, res.body).toBe(200);
    await eventually(locks, (r) => r.statusCode === 200);
  });

  it('give the second of two admins saving one connector through each a 409', async () => {
    const content = `kind: github
version: v3
metadata: {name: gh}
spec:
  client_id: abc
  client_secret: shh
  teams_to_roles: [{organization: acme, team: ops, roles: [access]}]
`;
    const [one, two] = [
      await first.signIn(['editor'], 'ann'),
      await second.signIn(['editor'], 'bo'),
    ];
    const call = (app: TestApp, headers: Record<string, string>, payload?: object) =>
      app.server.inject({
        method: payload ? 'PUT' : 'GET',
        url: payload ? '/v1/webapi/github/gh' : '/v1/webapi/github',
        headers,
        payload,
      });
    const created = await first.server.inject({
      method: 'POST',
      url: '/v1/webapi/github',
      headers: one,
      payload: { content },
    });
    expect(created.statusCode, created.body).toBe(200);
    const loaded = [
      (await call(first, one)).json()[0].content,
      (await call(second, two)).json()[0].content,
    ];
    expect(loaded[0]).toMatch(/revision: '\d+'/);
    const saved = await call(first, one, { content: loaded[0].replace('abc', 'ann') });
    expect(saved.statusCode, saved.body).toBe(200);
    const late = await call(second, two, { content: loaded[1].replace('abc', 'bo') });
    expect(late.statusCode, late.body).toBe(409);
    expect(late.json().error.code).toBe('compare_failed');
    const stored = await second.services.connectors.forLogin('github', 'gh');
    expect(stored?.spec).toMatchObject({ client_id: 'ann', client_secret: 'shh' });
  });

  it('apply an access request approved through the other, and its deletion, to the session on this one', async () => {
    const admin = { name: 'test', roleSet: null };
    const role = (name: string, allow: object) =>
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } });
    await second.services.roles.create(
      role('asks-editor-pg', { request: { roles: ['editor'] } }),
      admin,
    );
    await second.services.roles.create(
      role('reviews-editor-pg', { review_requests: { roles: ['editor'] } }),
      admin,
    );
    const base = '/v1/webapi/sites/test-cluster/accessrequests';
    const ria = await eventually(
      () => first.signIn(['asks-editor-pg'], 'ria'),
      () => first.services.access.roles.get('asks-editor-pg') !== undefined,
    );
    const created = await first.server.inject({
      method: 'POST',
      url: base,
      headers: ria,
      payload: { roles: ['editor'] },
    });
    expect(created.statusCode, created.body).toBe(200);
    const { id } = created.json();
    // Approved through the second proxy.
    const rex = await second.signIn(['reviews-editor-pg'], 'rex');
    const reviewed = await eventually(
      () =>
        second.server.inject({
          method: 'POST',
          url: `${base}/${id}/reviews`,
          headers: rex,
          payload: { state: 'APPROVED' },
        }),
      (r) => r.statusCode === 200,
    );
    expect(reviewed.json().state).toBe('APPROVED');
    // Assumed through the first, which saw the approval through the watch.
    const renewed = await eventually(
      () =>
        first.server.inject({
          method: 'POST',
          url: '/v1/webapi/sessions/web/renew',
          headers: ria,
          payload: { requestId: id },
        }),
      (r) => r.statusCode === 200,
    );
    expect(renewed.statusCode, renewed.body).toBe(200);
    const assumed = {
      cookie: String(renewed.headers['set-cookie']).split(';')[0]!,
      authorization: `Bearer ${renewed.json().token}`,
    };
    const users = () => first.server.inject({ url: '/v1/webapi/users', headers: assumed });
    expect((await users()).statusCode).toBe(200);
    // Deleted through the second: the first stops granting its roles within the watch's latency.
    const deleted = await second.server.inject({
      method: 'DELETE',
      url: `${base}/${id}`,
      headers: await second.signIn(['asks-editor-pg'], 'ria'),
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await eventually(users, (r) => r.statusCode === 403)).statusCode).toBe(403);
  });

  it('seeded the preset roles once between them', async () => {
    const { items } = await first.backend.list({ prefix: '/roles/' });
    expect(items.map((item) => item.key)).toEqual(
      expect.arrayContaining(['/roles/access', '/roles/auditor', '/roles/editor']),
    );
  });
});

/** Polls for up to a second: watch delivers across instances, not instantly. */
async function eventually<T>(attempt: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 1000;
  for (;;) {
    const value = await attempt();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
