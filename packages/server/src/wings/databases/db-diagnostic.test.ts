import {
  apiPaths,
  connectionDiagnosticSchema,
  databaseResourceSchema,
  type ConnectionDiagnosticRequest,
} from '@postern/contracts';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostActor } from '../../access-control/access/actor.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';

// Discover's connection test of a database (POST …/diagnostics/connections, resource_kind db):
// the caller's roles, then whether the database answers where the proxy dials it. The
// databases are stand-ins that answer as PostgreSQL and MySQL do to a first connection.

let app: TestApp;
let tester: Record<string, string>;
let noDbRoles: Record<string, string>;
let dbOnly: Record<string, string>;
const servers: Server[] = [];
const url = apiPaths.connectionDiagnostics('test-cluster');

/** A listener that answers each connection with `answer(socket)`; its port. */
async function standIn(answer: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    answer(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const mysqlPacket = (payload: Buffer) =>
  Buffer.concat([Buffer.from([payload.length, 0, 0, 0]), payload]);

beforeAll(async () => {
  // After its answer, a stand-in has nothing to say to TLS: it hangs up, as no database would.
  const sslRequestAnswer = (answer: string) => (socket: Socket) =>
    socket.once('data', () => {
      socket.write(answer);
      socket.once('data', () => socket.destroy());
    });
  const tlsPg = await standIn(sslRequestAnswer('S'));
  const plainPg = await standIn(sslRequestAnswer('N'));
  const mysql = await standIn((socket) =>
    socket.write(mysqlPacket(Buffer.from('\x0a10.11.6-MariaDB\0', 'latin1'))),
  );
  const mysqlRefusing = await standIn((socket) =>
    socket.end(
      mysqlPacket(
        Buffer.concat([
          Buffer.from([0xff, 0x6a, 0x04]),
          Buffer.from("Host '10.0.0.1' is not allowed to connect"),
        ]),
      ),
    ),
  );
  const db = (name: string, protocol: 'postgres' | 'mysql', port: number, env = 'prod') =>
    databaseResourceSchema.parse({
      kind: 'db',
      metadata: { name, labels: { env } },
      spec: { protocol, uri: `127.0.0.1:${port}` },
    });
  app = await createTestApp({
    databases: [
      db('orders', 'postgres', tlsPg),
      db('plain', 'postgres', plainPg),
      db('gone', 'postgres', await closedPort()),
      db('shop', 'mysql', mysql),
      db('picky', 'mysql', mysqlRefusing),
      db('finance', 'postgres', tlsPg, 'finance'),
    ],
  });
  const role = (name: string, allow: object) =>
    app.services.roles.create(
      JSON.stringify({ kind: 'role', version: 'v7', metadata: { name }, spec: { allow } }),
      hostActor('test'),
    );
  const diagnose = { resources: ['connection_diagnostic'], verbs: ['create', 'read'] };
  await role('db-tester', {
    db_labels: { env: 'prod' },
    db_users: ['reader'],
    db_names: ['orders', 'reader', 'shop'],
    rules: [diagnose],
  });
  await role('tester-no-db', { rules: [diagnose] });
  await role('db-only', { db_labels: { '*': '*' }, db_users: ['*'], db_names: ['*'] });
  tester = await app.signIn(['db-tester'], 'tess');
  noDbRoles = await app.signIn(['tester-no-db'], 'nora');
  dbOnly = await app.signIn(['db-only'], 'dora');
});
afterAll(async () => {
  await app.close();
  for (const server of servers) server.close();
});

const test = (body: Partial<ConnectionDiagnosticRequest>, headers?: Record<string, string>) =>
  app.server.inject({
    method: 'POST',
    url,
    payload: { resource_kind: 'db', ...body },
    headers,
  });
const diagnosis = async (
  body: Partial<ConnectionDiagnosticRequest>,
  headers: Record<string, string> = tester,
) => {
  const res = await test(body, headers);
  expect(res.statusCode, res.body).toBe(200);
  return connectionDiagnosticSchema.parse(res.json());
};
const steps = (traces: { trace_type: string; status: string }[]) =>
  traces.map((trace) => `${trace.trace_type}:${trace.status}`);

describe('POST /sites/{clusterId}/diagnostics/connections, resource_kind db', () => {
  const orders = { resource_name: 'orders', database_user: 'reader', database_name: 'orders' };

  it('needs a session (401) and connectionDiagnostic create (403)', async () => {
    expect((await test(orders)).statusCode).toBe(401);
    const denied = await test(orders, dbOnly);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.message).toMatch(/create on connectionDiagnostic is not allowed/);
  });

  it('passes the roles and connectivity for an allowed route to a database that answers', async () => {
    const result = await diagnosis(orders);
    expect(result.id).toMatch(/^[0-9a-f-]{36}$/);
    // The stand-in cannot sign anyone in: db-sign-in.test.ts has a real PostgreSQL for that.
    expect(result.traces.slice(0, 3)).toEqual([
      {
        trace_type: 'rbac_database',
        status: 'success',
        details: 'Your roles reach database orders.',
        error: '',
      },
      {
        trace_type: 'rbac_database_login',
        status: 'success',
        details: 'Your roles allow database user "reader" and database "orders" on orders.',
        error: '',
      },
      {
        trace_type: 'connectivity',
        status: 'success',
        details: expect.stringMatching(/^Database orders answered at 127\.0\.0\.1:\d+\.$/),
        error: '',
      },
    ]);
    expect(result.traces[3]).toMatchObject({ trace_type: 'database_db_user', status: 'failed' });
    // PostgreSQL opens the database named like the user when none is asked for.
    const byDefault = await diagnosis({ resource_name: 'orders', database_user: 'reader' });
    expect(byDefault.traces[1]!.details).toContain('database "reader"');
    const mysql = await diagnosis({
      resource_name: 'shop',
      database_user: 'reader',
      database_name: 'shop',
    });
    expect(steps(mysql.traces).slice(0, 3)).toEqual([
      'rbac_database:success',
      'rbac_database_login:success',
      'connectivity:success',
    ]);
  });

  it('stops at the roles: a database user or name they do not allow, or a database they do not reach', async () => {
    const user = await diagnosis({ ...orders, database_user: 'postgres' });
    expect(user.success).toBe(false);
    expect(steps(user.traces)).toEqual(['rbac_database:success', 'rbac_database_login:failed']);
    expect(user.message).toBe(
      'access to db denied: tess may not connect to orders as database user "postgres"',
    );
    const name = await diagnosis({ ...orders, database_name: 'payroll' });
    expect(name.message).toBe(
      'access to db denied: tess may not open database "payroll" on orders',
    );
    const reach = await diagnosis({ ...orders, resource_name: 'finance' });
    expect(steps(reach.traces)).toEqual(['rbac_database:failed']);
    expect(reach.message).toBe('access to db denied: tess may not reach database finance');
    expect(reach.traces[0]!.details).toMatch(/db_labels must match its labels/);
    const none = await diagnosis(orders, noDbRoles);
    expect(steps(none.traces)).toEqual(['rbac_database:failed']);
  });

  it('says why a database does not answer', async () => {
    const refused = await diagnosis({ ...orders, resource_name: 'gone', database_name: 'orders' });
    expect(steps(refused.traces)).toEqual([
      'rbac_database:success',
      'rbac_database_login:success',
      'connectivity:failed',
    ]);
    expect(refused.message).toMatch(
      /^cannot reach database gone at 127\.0\.0\.1:\d+: connect ECONNREFUSED/,
    );
    const plain = await diagnosis({ ...orders, resource_name: 'plain' });
    expect(plain.message).toMatch(
      /it does not accept TLS \(ssl = off\?\), and Postern never connects without it$/,
    );
    const picky = await diagnosis({
      resource_name: 'picky',
      database_user: 'reader',
      database_name: 'shop',
    });
    expect(picky.message).toMatch(
      /it refused the connection: Host '10\.0\.0\.1' is not allowed to connect$/,
    );
  });

  it('answers 404 for an unknown database and 400 for a request it cannot run', async () => {
    const unknown = await test({ ...orders, resource_name: 'nope' }, tester);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.message).toBe('no database named nope');
    const noUser = await test({ resource_name: 'orders' }, tester);
    expect(noUser.statusCode).toBe(400);
    expect(noUser.json().error.message).toBe('database_user: name the database user to test');
    const noKind = await test({ resource_kind: '', database_user: 'reader' }, tester);
    expect(noKind.statusCode).toBe(400);
    expect(noKind.json().error.message).toMatch(/^resource_kind: name the kind/);
    const node = await test({ ...orders, resource_kind: 'node' }, tester);
    expect(node.statusCode).toBe(400);
    expect(node.json().error.message).toBe(
      'resource_kind: this proxy has no connection test for node; it tests db',
    );
  });
});
