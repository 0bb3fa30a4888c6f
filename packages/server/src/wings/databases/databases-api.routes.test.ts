import {
  apiPaths,
  databaseIamPolicyResponseSchema,
  databaseJsonSchema,
  databaseResourceSchema,
  databaseServiceListResponseSchema,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

// The databases web API beyond the list: create and change (POST, PUT), the IAM policy call,
// the database services (server certificates, POST sign/db: db-server-certs.routes.test.ts).

let app: TestApp;
let admin: Record<string, string>;
let reader: Record<string, string>;
let prodOnly: Record<string, string>;
let serversOnly: Record<string, string>;
const cluster = 'test-cluster';
const createUrl = apiPaths.databases(cluster);
const one = (name: string) => apiPaths.database(cluster, name);

beforeAll(async () => {
  app = await createTestApp({
    databases: [
      databaseResourceSchema.parse({
        kind: 'db',
        metadata: { name: 'configured', labels: { env: 'prod' } },
        spec: { protocol: 'postgres', uri: '127.0.0.1:1' },
      }),
    ],
  });
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      hostActor('test'),
    );
  const everywhere = { db_labels: { '*': '*' }, db_users: ['*'], db_names: ['*'] };
  await role('db-admin', {
    ...everywhere,
    rules: [
      { resources: ['db'], verbs: ['list', 'read', 'create', 'update', 'delete'] },
      { resources: ['db_server'], verbs: ['list', 'read', 'create'] },
    ],
  });
  // Sees every database (list and read come with db_labels) and writes none.
  await role('db-reader', everywhere);
  await role('db-prod', { db_labels: { env: 'prod' }, db_users: ['*'], db_names: ['*'] });
  await role('servers-only', { node_labels: { '*': '*' }, logins: ['root'] });
  admin = await app.signIn(['db-admin'], 'dana');
  reader = await app.signIn(['db-reader'], 'rita');
  prodOnly = await app.signIn(['db-prod'], 'pat');
  serversOnly = await app.signIn(['servers-only'], 'sam');
});
afterAll(() => app.close());

const post = (url: string, payload: unknown, headers?: Record<string, string>) =>
  app.server.inject({ method: 'POST', url, payload: payload as object, headers });
const put = (url: string, payload: unknown, headers?: Record<string, string>) =>
  app.server.inject({ method: 'PUT', url, payload: payload as object, headers });
const auditCodes = async (code: string) =>
  (
    await app.audit.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 500 })
  ).events.filter((event) => event.code === code);

describe('POST /sites/{clusterId}/databases', () => {
  const body = {
    name: 'orders',
    description: 'Orders',
    protocol: 'postgres',
    uri: 'db1.internal:5432',
    labels: [{ name: 'env', value: 'dev' }],
  };

  it('needs a session (401) and db create (403)', async () => {
    expect((await post(createUrl, body)).statusCode).toBe(401);
    const denied = await post(createUrl, body, reader);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.message).toMatch(/create on db is not allowed/);
    expect((await post(createUrl, body, serversOnly)).statusCode).toBe(403);
  });

  it('creates a database the proxy serves, audited, listed at once after', async () => {
    const res = await post(createUrl, body, admin);
    expect(res.statusCode, res.body).toBe(200);
    expect(databaseJsonSchema.parse(res.json())).toMatchObject({
      name: 'orders',
      desc: 'Orders',
      protocol: 'postgres',
      hostname: 'db1.internal',
      labels: [{ name: 'env', value: 'dev' }],
      tunnel: false,
    });
    await vi.waitFor(() => expect(app.services.databases.get('orders')?.source).toBe('resource'));
    expect(app.services.databases.get('orders')?.spec.tls.mode).toBe('verify-full');
    expect(await auditCodes('TDB03I')).toEqual([
      expect.objectContaining({ user: 'dana', name: 'orders' }),
    ]);
    const read = await app.server.inject({ url: one('orders'), headers: reader });
    expect(read.json().desc).toBe('Orders');
  });

  it('takes labels as a map too, a CA and a TLS mode', async () => {
    const ca = (await app.services.dbClientCa()).certPem;
    const res = await post(
      createUrl,
      {
        name: 'billing',
        protocol: 'mysql',
        uri: '[::1]:3306',
        labels: { team: 'money' },
        ca_cert: ca,
        tls: { mode: 'verify-ca' },
      },
      admin,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ hostname: '::1', desc: '', protocol: 'mysql' });
    await vi.waitFor(() => expect(app.services.databases.get('billing')).toBeDefined());
    expect(app.services.databases.get('billing')?.spec).toMatchObject({
      ca_cert: ca,
      tls: { mode: 'verify-ca' },
    });
  });

  it('refuses a name in use (409), whoever defined it, and bad input (400) naming the field', async () => {
    const taken = await post(createUrl, { ...body, name: 'configured' }, admin);
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toEqual({
      code: 'already_exists',
      message: 'database configured already exists',
    });
    const bad = async (payload: object, message: RegExp) => {
      const res = await post(createUrl, payload, admin);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.message).toMatch(message);
    };
    await bad({ ...body, name: 'Bad_Name' }, /^name: database names are DNS labels/);
    await bad({ ...body, protocol: 'oracle' }, /^protocol: protocol is postgres or mysql/);
    await bad({ ...body, uri: 'db1.internal' }, /^uri: uri is host:port/);
    await bad(
      {
        ...body,
        labels: [
          { name: 'a', value: '1' },
          { name: 'a', value: '2' },
        ],
      },
      /label a is given twice/,
    );
    await bad({ ...body, ca_cert: 'not a cert' }, /^ca_cert: a PEM certificate/);
    await bad(
      { ...body, ca_cert: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' },
      /ca_cert: not a readable PEM certificate/,
    );
    await bad(
      { ...body, tls: { mode: 'off' } },
      /^tls.mode: one of verify-full, verify-ca, insecure$/,
    );
    await bad({ ...body, awsRds: {} }, /unknown or unchangeable field: awsRds/);
    expect(app.services.databases.get('bad-name')).toBeUndefined();
  });
});

describe('PUT /sites/{clusterId}/databases/{database}', () => {
  beforeAll(async () => {
    await app.services.databases.create(
      databaseResourceSchema.parse({
        kind: 'db',
        metadata: { name: 'editable', description: 'Before', labels: { env: 'prod' } },
        spec: { protocol: 'postgres', uri: 'db2.internal:5432', ca_cert: 'placeholder' },
      }),
      hostActor('test'),
    );
    await vi.waitFor(() => expect(app.services.databases.get('editable')).toBeDefined());
  });

  it('needs a session (401) and db edit (403)', async () => {
    expect((await put(one('editable'), { description: 'x' })).statusCode).toBe(401);
    const denied = await put(one('editable'), { description: 'x' }, reader);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.message).toMatch(/edit on db is not allowed/);
  });

  it('changes what is named and keeps the rest, audited', async () => {
    const res = await put(
      one('editable'),
      { description: 'After', labels: [{ name: 'env', value: 'stage' }], ca_cert: null },
      admin,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'editable',
      desc: 'After',
      hostname: 'db2.internal',
      labels: [{ name: 'env', value: 'stage' }],
    });
    await vi.waitFor(() =>
      expect(app.services.databases.get('editable')?.metadata.description).toBe('After'),
    );
    const stored = app.services.databases.get('editable')!;
    expect(stored.spec).toEqual({
      protocol: 'postgres',
      uri: 'db2.internal:5432',
      tls: { mode: 'verify-full' },
    });
    expect(stored.source).toBe('resource');
    expect(await auditCodes('TDB04I')).toEqual([
      expect.objectContaining({ user: 'dana', name: 'editable' }),
    ]);
  });

  it('refuses the config file’s databases (400), unknown and hidden ones (404), bad input (400)', async () => {
    const configured = await put(one('configured'), { description: 'x' }, admin);
    expect(configured.statusCode).toBe(400);
    expect(configured.json().error.message).toBe(
      'database configured comes from the config file and is read-only here: change it there',
    );
    expect((await put(one('nope'), { description: 'x' }, admin)).statusCode).toBe(404);
    const empty = await put(one('editable'), {}, admin);
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toMatch(/name something to change/);
    const rename = await put(one('editable'), { name: 'other', protocol: 'mysql' }, admin);
    expect(rename.statusCode).toBe(400);
    expect(rename.json().error.message).toBe(
      'unknown or unchangeable fields: name, protocol (allowed: description, uri, labels, ca_cert, tls)',
    );
    const badUri = await put(one('editable'), { uri: 'no port' }, admin);
    expect(badUri.json().error.message).toMatch(/^uri: /);
  });

  it('refuses an agent’s database (400), pointing at the agent', async () => {
    const served = databaseResourceSchema.parse({
      kind: 'db',
      metadata: { name: 'inside', labels: { site: 'inside' } },
      spec: { protocol: 'postgres', uri: '127.0.0.25:5432' },
    });
    await app.services.databases.reportFromAgent('node-7', [served], 60_000);
    await vi.waitFor(() => expect(app.services.databases.get('inside')).toBeDefined());
    const res = await put(one('inside'), { description: 'x' }, admin);
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toMatch(/served by agent node-7 and is read-only here/);
  });
});

describe('a hidden database stays hidden from writers', () => {
  it('answers 404 to PUT for a database the roles do not reach', async () => {
    await app.services.roles.create(
      JSON.stringify({
        kind: 'role',
        version: 'v7',
        metadata: { name: 'db-writer-prod' },
        spec: {
          allow: {
            db_labels: { env: 'prod' },
            rules: [{ resources: ['db'], verbs: ['update'] }],
          },
        },
      }),
      hostActor('test'),
    );
    const writer = await app.signIn(['db-writer-prod'], 'wes');
    const res = await put(one('billing'), { description: 'x' }, writer);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toBe('no database named billing');
  });
});

describe('GET /sites/{clusterId}/databases/{database}/iam/policy', () => {
  const url = (name: string) => apiPaths.databaseIamPolicy(cluster, name);

  it('needs a session (401) and database access (403)', async () => {
    expect((await app.server.inject({ url: url('configured') })).statusCode).toBe(401);
    expect(
      (await app.server.inject({ url: url('configured'), headers: serversOnly })).statusCode,
    ).toBe(403);
  });

  it('says no policy is needed, and 404 for unknown and hidden databases', async () => {
    const res = await app.server.inject({ url: url('configured'), headers: prodOnly });
    expect(res.statusCode).toBe(200);
    expect(databaseIamPolicyResponseSchema.parse(res.json())).toEqual({ type: 'none', aws: null });
    const unknown = await app.server.inject({ url: url('nope'), headers: prodOnly });
    expect(unknown.statusCode).toBe(404);
    const hidden = await app.server.inject({ url: url('billing'), headers: prodOnly });
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json().error.message).toBe('no database named billing');
  });
});

describe('GET /sites/{clusterId}/databaseservices', () => {
  const url = apiPaths.databaseServices(cluster);

  beforeAll(async () => {
    const served = databaseResourceSchema.parse({
      kind: 'db',
      metadata: { name: 'warehouse', labels: { env: 'prod' } },
      spec: { protocol: 'postgres', uri: '127.0.0.29:5432' },
    });
    await app.services.databases.reportFromAgent('node-3', [served], 60_000);
    await vi.waitFor(() => expect(app.services.databases.get('warehouse')).toBeDefined());
  });

  it('needs a session (401) and database access (403)', async () => {
    expect((await app.server.inject({ url })).statusCode).toBe(401);
    expect((await app.server.inject({ url, headers: serversOnly })).statusCode).toBe(403);
  });

  it('lists the proxy (any labels) and each agent with the databases the caller may see', async () => {
    const res = await app.server.inject({ url, headers: reader });
    expect(res.statusCode).toBe(200);
    const { items, startKey } = databaseServiceListResponseSchema.parse(res.json());
    expect(startKey).toBe('');
    expect(items.map((item) => item.name)).toEqual(['node-3', 'node-7', 'proxy.test']);
    expect(items[0]).toEqual({ name: 'node-3', matcherLabels: {}, databases: ['warehouse'] });
    expect(items[2]).toMatchObject({ name: 'proxy.test', matcherLabels: { '*': ['*'] } });
    expect(items[2]!.databases).toEqual(
      expect.arrayContaining(['billing', 'configured', 'editable', 'orders']),
    );
    // pat reaches env=prod only: node-7's database (site=inside) and its agent stay hidden.
    const prod = databaseServiceListResponseSchema.parse(
      (await app.server.inject({ url, headers: prodOnly })).json(),
    );
    expect(prod.items).toEqual([
      { name: 'node-3', matcherLabels: {}, databases: ['warehouse'] },
      { name: 'proxy.test', matcherLabels: { '*': ['*'] }, databases: ['configured'] },
    ]);
  });

  it('pages by name, and refuses a bad limit (400)', async () => {
    const first = await app.server.inject({ url, query: { limit: '2' }, headers: reader });
    const page = databaseServiceListResponseSchema.parse(first.json());
    expect(page.items.map((item) => item.name)).toEqual(['node-3', 'node-7']);
    expect(page.startKey).toBe('proxy.test');
    const next = await app.server.inject({
      url,
      query: { limit: '2', startKey: page.startKey },
      headers: reader,
    });
    expect(databaseServiceListResponseSchema.parse(next.json())).toMatchObject({
      items: [{ name: 'proxy.test' }],
      startKey: '',
    });
    const bad = await app.server.inject({ url, query: { limit: '0' }, headers: reader });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toMatch(/^limit: /);
  });
});
