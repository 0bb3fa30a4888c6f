import {
  appResourceSchema,
  assistConnectionSchema,
  databaseResourceSchema,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../../testing/app-harness.testkit.js';
import { FakeChatModel } from './fake-chat-model.testkit.js';

// What the model's list_resources sees, through a real turn: the Resources page's lists for the
// user (each kind's RBAC filter, only the kinds the ACL lets them list), cut to the fields that
// say what a resource is. The model is a named fake that calls the tool with the test's
// arguments; the addresses are closed loopback ports, and nothing is dialled.

const admin = hostActor('test');
let app: TestApp;
let toolName = 'list_resources';
let toolArgs: object = {};
const fake = new FakeChatModel((request) => {
  if (request.tools.length === 0) return { text: 'A title' };
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { text: 'Here they are.' };
  return { toolCalls: [{ name: toolName, arguments: toolArgs }] };
});

beforeAll(async () => {
  app = await createTestApp({
    assist: await fake.startForAssist({ rateLimit: { burst: 100, perSecond: 100 } }),
    apps: [
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name: 'grafana', labels: { env: 'prod' }, description: 'Dashboards' },
        spec: { uri: 'http://127.0.0.1:9' },
      }),
      appResourceSchema.parse({
        kind: 'app',
        metadata: { name: 'lab-notebook', labels: { env: 'lab' } },
        spec: { uri: 'http://127.0.0.1:13' },
      }),
    ],
    databases: [
      databaseResourceSchema.parse({
        kind: 'db',
        metadata: { name: 'orders', labels: { env: 'prod' } },
        spec: { protocol: 'postgres', uri: '127.0.0.1:9' },
      }),
    ],
  });
  const role = (name: string, spec: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec }),
      admin,
    );
  await role('prod-reader', {
    allow: { app_labels: { env: 'prod' }, db_labels: { env: 'prod' }, db_users: ['reporter'] },
  });
  await role('no-db-list', {
    allow: { app_labels: { env: 'prod' }, db_labels: { env: 'prod' } },
    deny: { rules: [{ resources: ['db_server', 'db'], verbs: ['list'] }] },
  });
});
afterAll(async () => {
  await app?.close();
  await fake.stop();
});

/** One turn in which the model calls `name` with `args`: what the tool answered, and what was stored. */
async function toolTurn(name: string, roles: string[], args: object) {
  toolName = name;
  toolArgs = args;
  const assist = app.services.assist;
  const user = `rae-${roles.join('-')}`;
  const { id } = await assist.create(user);
  const caller = { user, roleSet: app.services.access.roleSetFor(user, roles) };
  await assist.turn(caller, id, 'what can I reach?', () => {});
  const answer = fake.requests
    .flatMap((request) => request.messages)
    .filter((message) => message.role === 'tool')
    .at(-1);
  return { answer: answer!.content!, stored: await assist.messages(user, id) };
}

/** One turn in which the model calls list_resources with `args`: what the tool answered. */
async function listed(roles: string[], args: object = {}) {
  const { answer } = await toolTurn('list_resources', roles, args);
  return (JSON.parse(answer) as { resources: Record<string, unknown>[] }).resources;
}

describe('list_resources', () => {
  it('lists what the user reaches, of every kind, with what says how to reach it', async () => {
    const all = await listed(['prod-reader']);
    expect(all.map((r) => `${String(r.kind)}:${String(r.name)}`).sort()).toEqual([
      'app:grafana',
      'db:orders',
    ]);
    const db = all.find((r) => r.kind === 'db')!;
    expect(db).toMatchObject({ protocol: 'postgres', database_users: ['reporter'] });
    const grafana = all.find((r) => r.kind === 'app')!;
    expect(grafana).toMatchObject({ description: 'Dashboards' });
    const allowed = new Set(['kind', 'name', 'hostname', 'description', 'desc', 'uri']);
    for (const field of ['publicAddr', 'protocol', 'type', 'addr', 'labels', 'tags']) {
      allowed.add(field);
    }
    for (const field of ['sshLogins', 'database_users', 'database_names']) allowed.add(field);
    for (const resource of all) {
      expect(Object.keys(resource).filter((field) => !allowed.has(field))).toEqual([]);
    }
  });

  it('narrows by kind and search, ignores unknown kinds, and keeps to the ACL', async () => {
    const names = async (roles: string[], args: object = {}) =>
      (await listed(roles, args)).map((r) => r.name);
    expect(await names(['prod-reader'], { kinds: ['db'] })).toEqual(['orders']);
    expect(await names(['prod-reader'], { search: 'graf' })).toEqual(['grafana']);
    expect(await names(['prod-reader'], { kinds: ['printer'] })).toHaveLength(2);
    expect(await names(['no-db-list'])).toEqual(['grafana']);
    expect(await names([])).toEqual([]);
  });
});

describe('propose_connection', () => {
  it('stores a card for a resource the user reaches, as the Resources page lists it', async () => {
    const asked = fake.requests.length;
    const { stored } = await toolTurn('propose_connection', ['prod-reader'], {
      kind: 'db',
      name: 'ORDERS',
    });
    // The turn ends with the card, as with a proposed command: the user acts next. (The title
    // request is the other one.)
    expect(fake.requests.length - asked).toBe(2);
    const cards = stored.filter((message) => message.type === 'CONNECTION');
    expect(cards).toHaveLength(1);
    const { resource } = assistConnectionSchema.parse(JSON.parse(cards[0]!.payload));
    expect(resource).toMatchObject({
      kind: 'db',
      name: 'orders',
      protocol: 'postgres',
      database_users: ['reporter'],
    });
  });

  it('refuses what the roles do not reach, a kind the ACL may not list, and no kind', async () => {
    const refusals = [
      [['prod-reader'], { kind: 'app', name: 'lab-notebook' }, /reaches no app named lab-notebook/],
      [['no-db-list'], { kind: 'db', name: 'orders' }, /may not list resources of kind db/],
      [['prod-reader'], { kind: 'printer', name: 'orders' }, /name the kind: node, app, db/],
      [['prod-reader'], { kind: 'app' }, /name the resource/],
    ] as const;
    for (const [roles, args, reason] of refusals) {
      const { answer, stored } = await toolTurn('propose_connection', [...roles], args);
      expect(answer).toMatch(/^Not proposed: /);
      expect(answer).toMatch(reason);
      expect(stored.filter((message) => message.type === 'CONNECTION')).toEqual([]);
    }
  });
});
