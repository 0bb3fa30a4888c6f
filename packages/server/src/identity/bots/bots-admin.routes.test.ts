import {
  apiPaths,
  botJsonSchema,
  botListResponseSchema,
  createBotResponseSchema,
  issuedBotTokenSchema,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import { auditEventsOf } from '../../testing/audit-events.testkit.js';
import { generateEd25519Key } from '../../ssh/keys.js';

// Manage Bots through the API (docs/bots.md): the same bots `postern bots` manages on the host.

const cluster = 'test-cluster';
let app: TestApp;
let admin: Record<string, string>;
let manager: Record<string, string>;
let plain: Record<string, string>;

/** A role whose only grant is one rule (YAML flow style), created by the host's admin. */
const createRuleRole = (name: string, rule: string) =>
  app.services.roles.create(
    `kind: role\nversion: v7\nmetadata: {name: ${name}}\nspec:\n  allow:\n    rules: [${rule}]\n`,
    { name: 'test', roleSet: null },
  );

beforeAll(async () => {
  app = await createTestApp();
  await app.services.users.create({ name: 'root', roles: ['editor'] }, 'test');
  admin = await app.signIn(['editor'], 'root');
  // Manages bots but may not create roles: it can hand bots only the roles it holds itself.
  await createRuleRole('bot-manager', "{resources: [bot], verbs: ['*']}");
  manager = await app.signIn(['bot-manager', 'access'], 'maria');
  plain = await app.signIn(['access'], 'alice');
});
afterAll(() => app?.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, payload?: unknown, headers = admin) =>
  app.server.inject({ method, url, headers, payload: payload as object });

const bots = apiPaths.bots(cluster);
const bot = (name: string) => apiPaths.bot(cluster, name);
const token = (name: string) => apiPaths.botToken(cluster, name);

/** A token issued a moment ago for `ms` (the app's clock runs on). */
const expectLife = (expires: string, ms: number) => {
  const left = Date.parse(expires) - app.clock.now();
  expect(left).toBeLessThanOrEqual(ms);
  expect(left).toBeGreaterThan(ms - 5000);
};

const create = async (body: object, headers = admin) => {
  const res = await call('POST', bots, body, headers);
  expect(res.statusCode, res.body).toBe(200);
  return createBotResponseSchema.parse(res.json());
};

describe('manage bots', () => {
  it('creates a bot with a join token that a copy joins with, and shows that copy', async () => {
    const created = await create({ name: 'deployer', roles: ['access'], logins: ['deploy'] });
    expect(created.bot).toMatchObject({
      name: 'deployer',
      user: 'bot-deployer',
      roles: ['access'],
      logins: ['deploy'],
      joinMethod: 'token',
      instances: [],
    });
    const token = created.token!;
    expect(created.bot.tokens).toEqual([{ hint: token.token.slice(-4), expires: token.expires }]);
    expectLife(token.expires, 3600_000); // an hour by default

    const joined = await app.server.inject({
      method: 'POST',
      url: apiPaths.botJoin,
      payload: { token: token.token, pub_key: generateEd25519Key().publicKey },
    });
    expect(joined.statusCode, joined.body).toBe(200);
    const read = botJsonSchema.parse((await call('GET', bot('deployer'))).json());
    expect(read.instances).toHaveLength(1);
    expect(read.instances[0]).toMatchObject({ generation: 1, addr: '127.0.0.1' });
    expect(read.instances[0]).not.toHaveProperty('bot');
    expect(read.tokens).toEqual([]);
    expect(await auditEventsOf(app, 'TB001I')).toContainEqual(
      expect.objectContaining({ user: 'root', bot_name: 'deployer', join_method: 'token' }),
    );
  });

  it('creates a bot that CI jobs join with their ID token: the rule, and no token', async () => {
    const oidc = {
      issuer: 'https://token.actions.githubusercontent.com',
      audience: 'proxy.example.com',
      claims: { repository: 'acme/deploy', ref: 'refs/heads/main' },
    };
    const created = await create({ name: 'gha', roles: ['access'], oidc });
    expect(created.token).toBeUndefined();
    expect(created.bot).toMatchObject({ joinMethod: 'oidc', oidc, tokens: [] });
    expect((await call('GET', bot('gha'))).json()).toMatchObject({ joinMethod: 'oidc', oidc });

    const refused = async (rule: object, message: RegExp) => {
      const res = await call('POST', bots, { name: 'gha2', roles: ['access'], oidc: rule });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toMatch(message);
    };
    await refused({ ...oidc, issuer: 'http://ci.example.com' }, /must be an https URL/);
    await refused({ ...oidc, claims: {} }, /name at least one claim/);
    await refused({ ...oidc, audience: ' ' }, /audience/);
    expect(await app.services.users.store.get('bot-gha2')).toBeNull();

    // The rule changes, and goes: copies then join with tokens only.
    const ruled = { ...oidc, claims: { repository: 'acme/other' } };
    expect((await call('PUT', bot('gha'), { oidc: ruled })).json()).toMatchObject({ oidc: ruled });
    const plain = await call('PUT', bot('gha'), { oidc: null });
    expect(plain.json()).toMatchObject({ joinMethod: 'token' });
    expect(plain.json()).not.toHaveProperty('oidc');
    expect((await call('DELETE', bot('gha'))).statusCode).toBe(200);
  });

  it('lists bots by name a page at a time, with the total, and searches names, roles and logins', async () => {
    await create({ name: 'backup', roles: ['auditor'] });
    await create({ name: 'ci', roles: ['access'], logins: ['builder'] });
    const first = botListResponseSchema.parse((await call('GET', `${bots}?limit=2`)).json());
    expect(first.items.map((item) => item.name)).toEqual(['backup', 'ci']);
    expect(first.totalCount).toBe(3);
    expect(first.startKey).toBe('ci');
    const next = botListResponseSchema.parse(
      (await call('GET', `${bots}?limit=2&startKey=ci`)).json(),
    );
    expect(next.items.map((item) => item.name)).toEqual(['deployer']);
    expect(next.startKey).toBe('');

    const search = async (words: string) =>
      botListResponseSchema
        .parse((await call('GET', `${bots}?search=${encodeURIComponent(words)}`)).json())
        .items.map((item) => item.name);
    expect(await search('ACCESS')).toEqual(['ci', 'deployer']);
    expect(await search('access build')).toEqual(['ci']);
    expect(await search('nothing-like-it')).toEqual([]);
  });

  it('changes roles and logins, gives another token, and deletes the bot with its user', async () => {
    const changed = await call('PUT', bot('backup'), { roles: ['access'], logins: ['backup'] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ roles: ['access'], logins: ['backup'] });
    expect((await app.services.users.store.get('bot-backup'))?.user.spec.roles).toEqual(['access']);

    const issued = await call('POST', token('backup'), { token_ttl: '15m' });
    expect(issued.statusCode, issued.body).toBe(200);
    const { expires } = issuedBotTokenSchema.parse(issued.json());
    expectLife(expires, 15 * 60_000);
    expect(await auditEventsOf(app, 'TB004I')).toContainEqual(
      expect.objectContaining({ user: 'root', bot_name: 'backup' }),
    );

    expect((await call('DELETE', bot('backup'))).statusCode).toBe(200);
    expect((await call('GET', bot('backup'))).statusCode).toBe(404);
    expect(await app.services.users.store.get('bot-backup')).toBeNull();
  });

  it('shows a bot’s user as the bot’s in Manage Users, where it is neither changed nor deleted', async () => {
    const users = await call('GET', '/v1/webapi/users');
    expect(users.json()).toContainEqual(expect.objectContaining({ name: 'bot-ci', bot: 'ci' }));
    expect(users.json()).toContainEqual(expect.not.objectContaining({ bot: expect.anything() }));
    const changed = await call('PUT', '/v1/webapi/users', { name: 'bot-ci', roles: ['editor'] });
    expect(changed.statusCode).toBe(400);
    expect(changed.json().error.message).toMatch(/bot ci's identity .* postern bots update\|rm ci/);
    expect((await call('DELETE', '/v1/webapi/users/bot-ci')).statusCode).toBe(400);
    expect((await app.services.users.store.get('bot-ci'))?.user.spec.roles).toEqual(['access']);
  });

  it('refuses bad input with a clear message and writes nothing', async () => {
    const refused = async (body: object, message: RegExp) => {
      const res = await call('POST', bots, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toMatch(message);
    };
    await refused({ name: 'Not A Name', roles: ['access'] }, /lower-case letters/);
    await refused({ name: 'nobody', roles: [] }, /a bot needs at least one role/);
    await refused({ name: 'nobody', roles: ['access'], token_ttl: 'soon' }, /token_ttl/);
    await refused({ name: 'nobody', roles: ['access'], token_ttl: '200h' }, /at most 168h/);
    expect((await call('GET', bot('nobody'))).statusCode).toBe(404);
    expect(await app.services.users.store.get('bot-nobody')).toBeNull();

    const noChange = await call('PUT', bot('ci'), {});
    expect(noChange.statusCode).toBe(400);
    expect(noChange.json().error.message).toMatch(/give roles, logins or a CI rule/);
    expect((await call('POST', bots, { name: 'ci', roles: ['access'] })).statusCode).toBe(409);
    expect((await call('GET', apiPaths.bots('elsewhere'))).statusCode).toBe(404);
  });
});

describe('who may manage bots', () => {
  const routes: [Method, string, object?][] = [
    ['GET', bots],
    ['POST', bots, { name: 'x', roles: ['access'] }],
    ['GET', bot('ci')],
    ['PUT', bot('ci'), { roles: ['access'] }],
    ['DELETE', bot('ci')],
    ['POST', token('ci'), {}],
  ];

  it('needs a session (401) and the verb on bots (403) for every route', async () => {
    for (const [method, url, body] of routes) {
      expect((await call(method, url, body, {})).statusCode, `${method} ${url}`).toBe(401);
      expect((await call(method, url, body, plain)).statusCode, `${method} ${url}`).toBe(403);
    }
  });

  it('lists and reads only the bots a where clause lets the caller see, and counts only them', async () => {
    await createRuleRole(
      'builder-bots',
      `{resources: [bot], verbs: [list, read], where: 'contains(bot.spec.logins, "builder")'}`,
    );
    const viewer = await app.signIn(['builder-bots'], 'vera');
    const listed = botListResponseSchema.parse((await call('GET', bots, undefined, viewer)).json());
    expect(listed.items.map((item) => item.name)).toEqual(['ci']);
    expect(listed.totalCount).toBe(1);
    expect((await call('GET', bot('ci'), undefined, viewer)).statusCode).toBe(200);
    expect((await call('GET', bot('deployer'), undefined, viewer)).statusCode).toBe(404);
  });

  it('gives bots only roles the caller could grant, and their tokens too', async () => {
    const mine = await create({ name: 'mine', roles: ['access'] }, manager);
    expect(mine.bot.roles).toEqual(['access']);

    const escalate = await call('POST', bots, { name: 'boss', roles: ['editor'] }, manager);
    expect(escalate.statusCode).toBe(403);
    expect(escalate.json().error.message).toMatch(/cannot grant roles .*editor/);
    expect(await app.services.users.store.get('bot-boss')).toBeNull();

    expect((await call('PUT', bot('mine'), { roles: ['editor'] }, manager)).statusCode).toBe(403);
    // A bot with roles the manager could not grant: no token, since a copy would act with them.
    await create({ name: 'admin-bot', roles: ['editor'] });
    expect((await call('POST', token('admin-bot'), {}, manager)).statusCode).toBe(403);
    const rule = {
      issuer: 'https://token.actions.githubusercontent.com',
      audience: 'proxy.example.com',
      claims: { repository: 'maria/own' },
    };
    expect((await call('PUT', bot('admin-bot'), { oidc: rule }, manager)).statusCode).toBe(403);
    expect((await call('PUT', bot('mine'), { oidc: rule }, manager)).statusCode).toBe(200);
    expect((await call('POST', token('admin-bot'), {})).statusCode).toBe(200);
  });
});
