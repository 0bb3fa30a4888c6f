import {
  apiPaths,
  databaseJsonSchema,
  databaseListResponseSchema,
  databaseResourceSchema,
  type DatabaseResourceInput,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

let app: TestApp;
let analyst: Record<string, string>;
let everyDb: Record<string, string>;
let serversOnly: Record<string, string>;
const listUrl = apiPaths.databases('test-cluster');

const db = (input: DatabaseResourceInput) => databaseResourceSchema.parse(input);
const configured = [
  db({
    kind: 'db',
    metadata: { name: 'orders', description: 'Orders', labels: { env: 'prod' } },
    spec: { protocol: 'postgres', uri: '127.0.0.1:1' },
  }),
  db({
    kind: 'db',
    metadata: { name: 'billing', description: 'Billing', labels: { env: 'finance' } },
    spec: { protocol: 'mysql', uri: 'billing.internal:3306' },
  }),
];

beforeAll(async () => {
  app = await createTestApp({ databases: configured });
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      hostActor('test'),
    );
  await role('db-prod', {
    db_labels: { env: 'prod' },
    db_users: ['reader', '{{internal.db_users}}'],
    db_names: ['orders'],
  });
  await role('db-all', { db_labels: { '*': '*' }, db_users: ['*'], db_names: ['*'] });
  await role('servers-only', { node_labels: { '*': '*' }, logins: ['root'] });
  await app.services.users.create(
    { name: 'ana', roles: ['db-prod'], traits: { db_users: ['ana_rw'] } },
    'test',
  );
  analyst = await app.signIn(['db-prod'], 'ana');
  everyDb = await app.signIn(['db-all'], 'root-dba');
  serversOnly = await app.signIn(['servers-only'], 'sam');
});
afterAll(() => app.close());

const names = (body: unknown) =>
  databaseListResponseSchema.parse(body).items.map((item) => item.name);

describe('GET /sites/{clusterId}/databases', () => {
  it('needs a session (401) and database access (403)', async () => {
    expect((await app.server.inject({ url: listUrl })).statusCode).toBe(401);
    const denied = await app.server.inject({ url: listUrl, headers: serversOnly });
    expect(denied.statusCode).toBe(403);
  });

  it('lists only what the roles reach, with the users and names they allow there', async () => {
    const mine = await app.server.inject({ url: listUrl, headers: analyst });
    expect(mine.statusCode).toBe(200);
    const [orders, ...rest] = databaseListResponseSchema.parse(mine.json()).items;
    expect(rest).toEqual([]);
    expect(orders).toMatchObject({
      name: 'orders',
      desc: 'Orders',
      protocol: 'postgres',
      type: 'self-hosted',
      hostname: '127.0.0.1',
      labels: [{ name: 'env', value: 'prod' }],
      database_users: ['ana_rw', 'reader'],
      database_names: ['orders'],
    });
    const all = await app.server.inject({ url: `${listUrl}?sort=name:asc`, headers: everyDb });
    expect(names(all.json())).toEqual(['billing', 'orders']);
    expect(databaseListResponseSchema.parse(all.json()).items[0]!.database_users).toEqual(['*']);
  });

  it('searches, filters by label, sorts and pages on the server', async () => {
    const search = await app.server.inject({ url: `${listUrl}?search=bill`, headers: everyDb });
    expect(names(search.json())).toEqual(['billing']);
    const byType = await app.server.inject({
      url: `${listUrl}?search=${encodeURIComponent('MySQL')}`,
      headers: everyDb,
    });
    expect(names(byType.json())).toEqual(['billing']);
    const label = await app.server.inject({
      url: `${listUrl}?query=${encodeURIComponent('labels["env"] == "prod"')}`,
      headers: everyDb,
    });
    expect(names(label.json())).toEqual(['orders']);
    const first = await app.server.inject({
      url: `${listUrl}?limit=1&sort=name:desc`,
      headers: everyDb,
    });
    const page = databaseListResponseSchema.parse(first.json());
    expect(page.items.map((item) => item.name)).toEqual(['orders']);
    expect(page.totalCount).toBe(2);
    const second = await app.server.inject({
      url: `${listUrl}?limit=1&sort=name:desc&startKey=${encodeURIComponent(page.startKey)}`,
      headers: everyDb,
    });
    expect(names(second.json())).toEqual(['billing']);
    const bad = await app.server.inject({ url: `${listUrl}?sort=uri:asc`, headers: everyDb });
    expect(bad.statusCode).toBe(400);
  });
});

describe('GET /sites/{clusterId}/databases/{database}', () => {
  const one = (name: string) => apiPaths.database('test-cluster', name);

  it('needs a session (401) and database access (403)', async () => {
    expect((await app.server.inject({ url: one('orders') })).statusCode).toBe(401);
    expect((await app.server.inject({ url: one('orders'), headers: serversOnly })).statusCode).toBe(
      403,
    );
  });

  it('answers one the roles reach, and 404 alike for hidden and unknown ones', async () => {
    const found = await app.server.inject({ url: one('orders'), headers: analyst });
    expect(databaseJsonSchema.parse(found.json()).name).toBe('orders');
    const hidden = await app.server.inject({ url: one('billing'), headers: analyst });
    const unknown = await app.server.inject({ url: one('nope'), headers: analyst });
    expect(hidden.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(hidden.json().error.message).toBe('no database named billing');
  });
});
