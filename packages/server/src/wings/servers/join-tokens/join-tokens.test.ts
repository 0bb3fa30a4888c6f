import { createHash } from 'node:crypto';
import {
  apiPaths,
  internalResourceIdLabel,
  joinTokenJsonSchema,
  joinTokenListSchema,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { hostActor } from '../../../access-control/access/actor.js';
import { joinTokensPrefix } from '../../../modules/join-tokens/join-tokens.store.js';

let app: TestApp;
let editor: Record<string, string>;
const url = '/v1/webapi/token';

beforeAll(async () => {
  app = await createTestApp();
  editor = await app.signIn(['editor'], 'erin');
});
afterAll(() => app.close());

const create = (payload: unknown, headers = editor) =>
  app.server.inject({ method: 'POST', url, headers, payload: payload as object });

async function allEvents() {
  const { events } = await app.audit.search({
    from: new Date(0),
    to: new Date(app.clock.now() + 864e5 * 30),
    limit: 1000,
  });
  return events;
}

describe('POST /v1/webapi/token', () => {
  it('issues a random token, shown once, stored only as its hash, and audits it', async () => {
    const res = await create({
      roles: ['Node'],
      suggested_agent_matcher_labels: { env: 'prod', team: ['a', 'b'] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const token = joinTokenJsonSchema.parse(res.json());
    expect(token.id).toMatch(/^[0-9a-f]{32}$/);
    expect(token.roles).toEqual(['Node']);
    expect(Date.parse(token.expiry) - app.clock.now()).toBeGreaterThan(29 * 60_000);
    expect(Date.parse(token.expiry) - app.clock.now()).toBeLessThanOrEqual(30 * 60_000);
    expect(token.internalResourceId).toMatch(/^[0-9a-f-]{36}$/);
    expect(token.suggestedLabels).toEqual([
      { name: 'env', value: 'prod' },
      { name: 'team', value: 'a' },
      { name: 'team', value: 'b' },
      { name: internalResourceIdLabel, value: token.internalResourceId },
    ]);

    const hash = createHash('sha256').update(token.id).digest('hex');
    const stored = await app.backend.get(joinTokensPrefix + hash);
    expect(stored?.expires?.toISOString()).toBe(token.expiry);
    const { items } = await app.backend.list({ prefix: '/' });
    expect(items.some((item) => item.key.includes(token.id) || item.value.includes(token.id))).toBe(
      false,
    );
    const events = await allEvents();
    const created = events.find((event) => event.code === 'TJT00I');
    expect(created).toMatchObject({ user: 'erin', roles: ['Node'], join_method: 'token' });
    expect(JSON.stringify(events)).not.toContain(token.id);

    const second = joinTokenJsonSchema.parse((await create({ roles: ['Node'] })).json());
    expect(second.id).not.toBe(token.id);
    expect(second.internalResourceId).not.toBe(token.internalResourceId);
  });

  it('refuses bad bodies with 400', async () => {
    const bodies = [
      {},
      { roles: [] },
      { roles: ['Bogus'] },
      { roles: ['Node'], join_method: 'ec2' },
      { roles: ['Node'], join_method: 'carrier-pigeon' },
      { roles: ['Node'], suggested_agent_matcher_labels: { 'bad name': 'x' } },
      { roles: ['Node'], suggested_agent_matcher_labels: { env: 3 } },
      { roles: ['Node'], ttl: 'soon' },
      { roles: ['Node'], ttl: '31d' },
      ['Node'],
    ];
    for (const body of bodies) {
      const res = await create(body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('bad_parameter');
    }
  });

  it('answers 401 without a session and 403 to a user who may not create tokens', async () => {
    const anonymous = await app.server.inject({
      method: 'POST',
      url,
      payload: { roles: ['Node'] },
    });
    expect(anonymous.statusCode).toBe(401);
    const res = await create({ roles: ['Node'] }, await app.signIn(['access', 'auditor'], 'al'));
    expect(res.statusCode).toBe(403);
    expect(res.json().error.message).toBe('access denied: create on tokens is not allowed');
  });
});

describe('Join Tokens: GET /v1/webapi/tokens, DELETE /v1/webapi/tokens/:id', () => {
  it('lists live tokens masked, lasting the TTL asked for, and deletes one by its id', async () => {
    const created = joinTokenJsonSchema.parse(
      (
        await create({
          roles: ['Node', 'App'],
          suggested_agent_matcher_labels: { env: 'lab' },
          ttl: '24h',
        })
      ).json(),
    );
    expect(Date.parse(created.expiry) - app.clock.now()).toBeGreaterThan(24 * 3600_000 - 5000);
    expect(Date.parse(created.expiry) - app.clock.now()).toBeLessThanOrEqual(24 * 3600_000);

    const res = await app.server.inject({
      method: 'GET',
      url: apiPaths.joinTokens,
      headers: editor,
    });
    expect(res.statusCode, res.body).toBe(200);
    const { items } = joinTokenListSchema.parse(res.json());
    const hash = createHash('sha256').update(created.id).digest('hex');
    const listed = items.find((item) => item.id === hash.slice(0, 16));
    expect(listed).toMatchObject({
      safeName: `••••${created.id.slice(-4)}`,
      roles: ['Node', 'App'],
      method: 'token',
      expiry: created.expiry,
      createdBy: 'erin',
      isStatic: false,
      internalResourceId: created.internalResourceId,
    });
    expect(listed!.suggestedLabels).toContainEqual({ name: 'env', value: 'lab' });
    // The secret is never listed, whole or in part beyond its last four characters.
    expect(res.body).not.toContain(created.id);
    expect(res.body).not.toContain(created.id.slice(0, 8));

    const removed = await app.server.inject({
      method: 'DELETE',
      url: apiPaths.joinTokenById(listed!.id),
      headers: editor,
    });
    expect(removed.statusCode, removed.body).toBe(200);
    await expect(app.services.joinTokens.validate(created.id, 'Node')).rejects.toThrow();
    const again = await app.server.inject({
      method: 'DELETE',
      url: apiPaths.joinTokenById(listed!.id),
      headers: editor,
    });
    expect(again.statusCode).toBe(404);
    expect(again.json().message).toBe('no such join token (it may have expired)');
    const deleted = (await allEvents()).filter((event) => event.code === 'TJT02I');
    expect(deleted.at(-1)).toMatchObject({ user: 'erin', name: listed!.id });
  });

  it('answers 401 without a session and 403 without the verb', async () => {
    const auditor = await app.signIn(['auditor'], 'audra');
    for (const [method, path] of [
      ['GET', apiPaths.joinTokens],
      ['DELETE', apiPaths.joinTokenById('0123456789abcdef')],
    ] as const) {
      const anonymous = await app.server.inject({ method, url: path });
      expect(anonymous.statusCode, `${method} ${path}`).toBe(401);
      const denied = await app.server.inject({ method, url: path, headers: auditor });
      expect(denied.statusCode, `${method} ${path}`).toBe(403);
      expect(denied.json().message).toMatch(
        /^access denied: (list|remove) on tokens is not allowed$/,
      );
    }
  });
});

describe('JoinTokensService', () => {
  it('validates a live token for its role, and says the same whatever is wrong', async () => {
    const { joinTokens } = app.services;
    const admin = hostActor('cli:test');
    const node = await joinTokens.create(
      { roles: ['Node'], join_method: 'token', allow: [], suggested_agent_matcher_labels: {} },
      admin,
    );
    const appToken = await joinTokens.create(
      { roles: ['App'], join_method: 'token', allow: [], suggested_agent_matcher_labels: {} },
      admin,
      { ttlMs: 3600_000 },
    );
    expect((await joinTokens.validate(node.token, 'Node')).metadata.name).toBe(
      node.resource.metadata.name,
    );
    const refusals = [
      joinTokens.validate('0'.repeat(32), 'Node'),
      joinTokens.validate('', 'Node'),
      joinTokens.validate(appToken.token, 'Node'),
      joinTokens.validate(node.token.toUpperCase(), 'Node'),
    ];
    app.clock.advance(30 * 60_000 + 1);
    refusals.push(joinTokens.validate(node.token, 'Node'));
    const messages = await Promise.all(
      refusals.map((refusal) =>
        refusal.then(
          () => 'accepted',
          (error: Error) => error.message,
        ),
      ),
    );
    expect(new Set(messages)).toEqual(new Set([messages[0]]));
    expect(messages[0]).toMatch(/join token is not valid/);
    expect((await joinTokens.validate(appToken.token, 'App')).spec.roles).toEqual(['App']);
  });

  it('lists live tokens and removes one by token or by id, with an audit event', async () => {
    const { joinTokens } = app.services;
    const admin = hostActor('cli:test');
    const request = {
      roles: ['Node' as const],
      join_method: 'token' as const,
      allow: [],
      suggested_agent_matcher_labels: {},
    };
    const a = await joinTokens.create(request, admin);
    const b = await joinTokens.create(request, admin);
    const names = (await joinTokens.list(admin)).map((token) => token.metadata.name);
    expect(names).toEqual(
      expect.arrayContaining([a.resource.metadata.name, b.resource.metadata.name]),
    );
    await joinTokens.remove(a.token, admin);
    await joinTokens.remove(b.resource.metadata.name.slice(0, 12), admin);
    await expect(joinTokens.validate(a.token, 'Node')).rejects.toThrow();
    await expect(joinTokens.remove(a.token, admin)).rejects.toMatchObject({ code: 'not_found' });
    await expect(joinTokens.remove('zz', admin)).rejects.toMatchObject({ code: 'not_found' });
    const ids = [a, b].map((issued) => issued.resource.metadata.name.slice(0, 16));
    const removed = (await allEvents()).filter(
      (event) => event.code === 'TJT02I' && ids.includes(String(event.name)),
    );
    expect(removed.map((event) => event.user)).toEqual(['cli:test', 'cli:test']);
    expect(JSON.stringify(removed)).not.toContain(a.token);
  });
});
