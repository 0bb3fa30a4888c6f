import { appResourceSchema, type AccessRequestJson } from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  type SignedInHeaders,
  type TestApp,
} from '../../testing/app-harness.testkit.js';

let app: TestApp;
const base = '/v1/webapi/sites/test-cluster/accessrequests';

const role = (name: string, spec: object) =>
  JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec });

beforeAll(async () => {
  app = await createTestApp({
    apps: ['grafana', 'kibana'].map((name, n) =>
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name, labels: { env: 'prod' } },
        spec: { uri: `http://127.0.0.1:${n + 1}` },
      }),
    ),
  });
  const host = { name: 'test', roleSet: null };
  await app.services.roles.create(
    role('requester', {
      allow: { request: { roles: ['editor', 'two-step'], suggested_reviewers: ['bob'] } },
    }),
    host,
  );
  await app.services.roles.create(
    role('reason-requester', {
      options: { request_access: 'reason', request_prompt: 'Which ticket is this for?' },
      allow: { request: { roles: ['editor'], max_duration: '2h' } },
    }),
    host,
  );
  await app.services.roles.create(
    role('editor-reviewer', { allow: { review_requests: { roles: ['editor', 'two-step'] } } }),
    host,
  );
  await app.services.roles.create(
    role('two-step', {
      allow: { logins: ['root'] },
    }),
    host,
  );
  await app.services.roles.create(
    role('prod-access', { allow: { node_labels: { env: 'prod' }, logins: ['root'] } }),
    host,
  );
  await app.services.roles.create(
    role('node-searcher', { allow: { request: { search_as_roles: ['prod-access'] } } }),
    host,
  );
  await app.services.roles.create(
    role('prod-reviewer', { allow: { review_requests: { roles: ['prod-access', 'prod-apps'] } } }),
    host,
  );
  await app.services.roles.create(
    role('prod-apps', { allow: { app_labels: { env: 'prod' } } }),
    host,
  );
  await app.services.roles.create(
    role('app-searcher', { allow: { request: { search_as_roles: ['prod-apps'] } } }),
    host,
  );
  await app.services.roles.create(
    role('strict-requester', {
      allow: { request: { roles: ['two-step'], thresholds: [{ approve: 2, deny: 1 }] } },
    }),
    host,
  );
});
afterAll(() => app.close());

async function call(headers: SignedInHeaders, method: string, url: string, payload?: object) {
  const res = await app.server.inject({
    method: method as 'GET',
    url,
    headers,
    ...(payload ? { payload } : {}),
  });
  return { status: res.statusCode, body: res.json() };
}

const create = async (headers: SignedInHeaders, payload: object) =>
  call(headers, 'POST', base, payload);
const review = (headers: SignedInHeaders, id: string, state: string, reason = 'ok') =>
  call(headers, 'POST', `${base}/${id}/reviews`, { state, reason });
const renew = (headers: SignedInHeaders, payload: object) =>
  app.server.inject({ method: 'POST', url: '/v1/webapi/sessions/web/renew', headers, payload });

/** The headers of the session a renewal answered with: its cookie and bearer. */
function renewedHeaders(res: Awaited<ReturnType<typeof renew>>): SignedInHeaders {
  const cookie = String(res.headers['set-cookie']).split(';')[0]!;
  return { cookie, authorization: `Bearer ${res.json().token}` };
}

const nodesUrl = '/v1/webapi/sites/test-cluster/nodes';
const hostnames = (body: { items: { hostname: string }[] }) =>
  body.items.map((n) => n.hostname).sort();

describe('requests for specific resources', () => {
  it('lists with search_as_roles (audited), then grants the role for the requested node only', async () => {
    const admin = { name: 'test', roleSet: null };
    // Closed loopback ports: nothing is dialled, the nodes only need to be listed.
    const web1 = await app.services.inventory.addOpenSsh(
      { name: 'web-1', addr: '127.0.0.1:9', labels: { env: 'prod' } },
      admin,
    );
    await app.services.inventory.addOpenSsh(
      { name: 'web-2', addr: '127.0.0.2:9', labels: { env: 'prod' } },
      admin,
    );
    const nina = await app.signIn(['node-searcher'], 'nina');
    // search_as_roles makes the list reachable; her own roles show nothing on it.
    const own = await call(nina, 'GET', nodesUrl);
    expect(own.status).toBe(200);
    expect(own.body.items).toEqual([]);
    const plain = await app.signIn(['requester'], 'plain');
    expect((await call(plain, 'GET', `${nodesUrl}?searchAsRoles=yes`)).status).toBe(403);

    // search_as_roles gives access_request rights, and the listing that builds a request.
    const noSearch = await app.signIn(['requester'], 'olga');
    const denied = await call(noSearch, 'POST', base, {
      resources: [{ kind: 'node', name: web1.metadata.name }],
    });
    expect(denied.status).toBe(403);

    const ninaList = await app.signIn(['node-searcher', 'access'], 'nina');
    const searched = await call(ninaList, 'GET', `${nodesUrl}?searchAsRoles=yes`);
    expect(searched.status).toBe(200);
    expect(hostnames(searched.body)).toEqual(['web-1', 'web-2']);
    const events = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 500,
      order: 'desc',
    });
    expect(events.events.find((e) => e.code === 'T5004I' && e.user === 'nina')).toMatchObject({
      resource_type: 'node',
      search_as_roles: ['prod-access'],
    });

    const missing = await create(nina, { resources: [{ kind: 'node', name: 'no-such-node' }] });
    expect(missing.status).toBe(404);
    const unknownKind = await create(nina, { resources: [{ kind: 'bucket', name: 'x' }] });
    expect(unknownKind.status).toBe(400);
    const { status, body: request } = await create(nina, {
      resources: [{ kind: 'node', name: web1.metadata.name }],
      reason: 'deploy',
    });
    expect(status).toBe(200);
    expect(request).toMatchObject({
      roles: ['prod-access'],
      resources: [{ kind: 'node', clusterName: '', name: web1.metadata.name }],
    });
    const bob = await app.signIn(['prod-reviewer'], 'bob');
    expect((await review(bob, request.id, 'APPROVED')).body.state).toBe('APPROVED');
    const assumed = renewedHeaders(await renew(nina, { requestId: request.id }));
    const listed = await call(assumed, 'GET', nodesUrl);
    expect(listed.status).toBe(200);
    expect(hostnames(listed.body)).toEqual(['web-1']);
    expect(listed.body.items[0].sshLogins).toEqual(['root']);
  });
});

describe('requests for specific apps', () => {
  it('grants the search role for the requested app only', async () => {
    const olive = await app.signIn(['app-searcher'], 'olive');
    const searched = await call(
      olive,
      'GET',
      '/v1/webapi/sites/test-cluster/apps?searchAsRoles=yes',
    );
    expect(searched.body.items.map((a: { name: string }) => a.name).sort()).toEqual([
      'grafana',
      'kibana',
    ]);
    const { status, body: request } = await create(olive, {
      resources: [{ kind: 'app', name: 'kibana' }],
      reason: 'logs',
    });
    expect(status, JSON.stringify(request)).toBe(200);
    expect(request).toMatchObject({
      roles: ['prod-apps'],
      resources: [{ kind: 'app', name: 'kibana' }],
    });
    const bob = await app.signIn(['prod-reviewer'], 'bob');
    await review(bob, request.id, 'APPROVED');
    const assumed = renewedHeaders(await renew(olive, { requestId: request.id }));
    const listed = await call(assumed, 'GET', '/v1/webapi/sites/test-cluster/apps');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((a: { name: string }) => a.name)).toEqual(['kibana']);
  });
});

describe('access requests', () => {
  it('lets a requester ask for a requestable role, with the suggested reviewers', async () => {
    const alice = await app.signIn(['requester'], 'alice');
    const res = await create(alice, { roles: ['editor'], reason: 'rotate the keys' });
    expect(res.status).toBe(200);
    const request = res.body as AccessRequestJson;
    expect(request).toMatchObject({
      state: 'PENDING',
      user: 'alice',
      roles: ['editor'],
      reason: 'rotate the keys',
      suggestedReviewers: ['bob'],
      assumable: false,
      reviewable: false,
    });
    const events = await app.audit.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 100,
      order: 'desc',
    });
    expect(events.events.some((e) => e.code === 'T5000I' && e.id === request.id)).toBe(true);
  });

  it('refuses a role the user may not request, and one that does not exist', async () => {
    const alice = await app.signIn(['requester'], 'alice');
    const forbidden = await create(alice, { roles: ['auditor'] });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.message).toBe('you may not request the role auditor');
    const missing = await create(alice, { roles: ['nope'] });
    expect(missing.status).toBe(400);
    expect((await create(alice, { roles: [] })).status).toBe(400);
  });

  it('requires a reason when the role says so, with its prompt, and caps the duration', async () => {
    const carl = await app.signIn(['reason-requester'], 'carl');
    const bare = await create(carl, { roles: ['editor'] });
    expect(bare.status).toBe(400);
    expect(bare.body.error.message).toBe('Which ticket is this for?');
    const tooLong = await create(carl, { roles: ['editor'], reason: 'T-1', maxDuration: '3h' });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.message).toMatch(/at most 120 minutes/);
    const ok = await create(carl, { roles: ['editor'], reason: 'T-1', maxDuration: '1h' });
    expect(ok.status).toBe(200);
    const lasts = Date.parse(ok.body.accessExpires) - Date.parse(ok.body.created);
    expect(lasts).toBe(3_600_000);
  });

  it('refuses self-approval, review by a non-reviewer, and a second review by the same person', async () => {
    const alice = await app.signIn(['requester', 'editor-reviewer'], 'alice2');
    const { body: request } = await create(alice, { roles: ['editor'], reason: 'x' });
    const self = await review(alice, request.id, 'APPROVED');
    expect(self.status).toBe(403);
    expect(self.body.error.message).toBe('you cannot review your own request');
    const mallory = await app.signIn(['requester'], 'mallory');
    expect((await review(mallory, request.id, 'APPROVED')).status).toBe(404);
    const nobody = await app.signIn([], 'nobody');
    expect((await review(nobody, request.id, 'APPROVED')).status).toBe(403);

    const strict = await app.signIn(['strict-requester'], 'sam');
    const { body: twoStep } = await create(strict, { roles: ['two-step'] });
    expect(twoStep.thresholds).toEqual([{ name: 'threshold-1', approve: 2, deny: 1 }]);
    const bob = await app.signIn(['editor-reviewer'], 'bob');
    const first = await review(bob, twoStep.id, 'APPROVED');
    expect(first.body.state).toBe('PENDING');
    const again = await review(bob, twoStep.id, 'APPROVED');
    expect(again.status).toBe(400);
    expect(again.body.error.message).toBe('you have reviewed this request already');
    const carol = await app.signIn(['editor-reviewer'], 'carol');
    const second = await review(carol, twoStep.id, 'APPROVED', 'two of us agree');
    expect(second.body).toMatchObject({ state: 'APPROVED', resolveReason: 'two of us agree' });
    expect(second.body.reviews.map((r: { author: string }) => r.author)).toEqual(['bob', 'carol']);
  });

  it('lists mine and those to review, and hides others', async () => {
    const dora = await app.signIn(['requester'], 'dora');
    const { body: request } = await create(dora, { roles: ['editor'], reason: 'dora' });
    const bob = await app.signIn(['editor-reviewer'], 'bob');
    const toReview = await call(bob, 'GET', `${base}?scope=review`);
    expect(toReview.body.items.map((r: AccessRequestJson) => r.id)).toContain(request.id);
    expect(toReview.body.items.every((r: AccessRequestJson) => r.reviewable)).toBe(true);
    const mine = await call(dora, 'GET', `${base}?scope=mine`);
    expect(mine.body.items.map((r: AccessRequestJson) => r.user)).toEqual(['dora']);
    const other = await app.signIn(['requester'], 'eve');
    expect((await call(other, 'GET', `${base}/${request.id}`)).status).toBe(404);
    expect((await call(other, 'GET', `${base}?scope=all`)).body.items).toEqual([]);
    expect((await call(other, 'DELETE', `${base}/${request.id}`)).status).toBe(404);
    expect((await call(dora, 'DELETE', `${base}/${request.id}`)).status).toBe(200);
    expect((await call(dora, 'GET', `${base}/${request.id}`)).status).toBe(404);
  });

  it('assumes an approved request through renew, and drops it with switchback', async () => {
    const frank = await app.signIn(['requester'], 'frank');
    expect((await call(frank, 'GET', '/v1/webapi/users')).status).toBe(403);
    const { body: request } = await create(frank, { roles: ['editor'], reason: 'users' });
    const pending = await renew(frank, { requestId: request.id });
    expect(pending.statusCode).toBe(400);
    expect(pending.json().error.message).toMatch(/is pending: it cannot be assumed/);
    const bob = await app.signIn(['editor-reviewer'], 'bob');
    await review(bob, request.id, 'APPROVED');

    const stranger = await app.signIn(['requester'], 'grace');
    expect((await renew(stranger, { requestId: request.id })).statusCode).toBe(404);

    const assumed = await renew(frank, { requestId: request.id });
    expect(assumed.statusCode).toBe(200);
    const withEditor = renewedHeaders(assumed);
    expect((await call(withEditor, 'GET', '/v1/webapi/users')).status).toBe(200);
    const context = await call(withEditor, 'GET', '/v1/webapi/sites/test-cluster/context');
    expect(context.body).toMatchObject({
      accessRequestId: request.id,
      accessRequestExpires: request.accessExpires,
      assumedRoles: ['editor'],
    });
    expect(context.body.roles).toEqual(['editor', 'requester']);
    expect(context.body.userAcl.users.list).toBe(true);

    const back = await renew(withEditor, { switchback: true });
    expect(back.statusCode).toBe(200);
    const plain = renewedHeaders(back);
    expect((await call(plain, 'GET', '/v1/webapi/users')).status).toBe(403);
    const after = await call(plain, 'GET', '/v1/webapi/sites/test-cluster/context');
    expect(after.body.accessRequestId).toBe('');
  });

  it('stops granting the roles when the access ends, and refuses assuming it then', async () => {
    const hal = await app.signIn(['requester'], 'hal');
    const { body: request } = await create(hal, { roles: ['editor'], maxDuration: '5m' });
    const bob = await app.signIn(['editor-reviewer'], 'bob');
    await review(bob, request.id, 'APPROVED');
    const assumed = renewedHeaders(await renew(hal, { requestId: request.id }));
    expect((await call(assumed, 'GET', '/v1/webapi/users')).status).toBe(200);
    app.clock.advance(6 * 60_000);
    expect((await call(assumed, 'GET', '/v1/webapi/users')).status).toBe(403);
    const again = await renew(assumed, { requestId: request.id });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.message).toMatch(/is expired/);
    const listed = await call(assumed, 'GET', `${base}/${request.id}`);
    expect(listed.body.state).toBe('EXPIRED');
  });

  it('refuses assuming a denied request, and a renew body with two asks', async () => {
    const ivy = await app.signIn(['requester'], 'ivy');
    const { body: request } = await create(ivy, { roles: ['editor'] });
    const bob = await app.signIn(['editor-reviewer'], 'bob');
    expect((await review(bob, request.id, 'DENIED', 'not today')).body).toMatchObject({
      state: 'DENIED',
      resolveReason: 'not today',
    });
    const denied = await renew(ivy, { requestId: request.id });
    expect(denied.statusCode).toBe(400);
    expect(denied.json().error.message).toMatch(/is denied/);
    const both = await renew(ivy, { requestId: request.id, switchback: true });
    expect(both.statusCode).toBe(400);
  });
});
