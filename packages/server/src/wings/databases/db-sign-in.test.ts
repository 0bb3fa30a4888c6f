import {
  apiPaths,
  connectionDiagnosticSchema,
  type ConnectionDiagnosticRequest,
} from '@postern/contracts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDatabaseRole, registerTestDatabase } from '../../testing/databases.testkit.js';
import { createTestApp, type TestApp } from '../../testing/app-harness.testkit.js';
import {
  startPrivatePostgres,
  type PrivatePostgres,
} from '../../testing/private-postgres.testkit.js';

// Discover's connection test signing in to a real PostgreSQL that trusts only the proxy's
// database client CA: through the same engine as psql's connections, as the caller, with the
// database user and name they ask about.

let app: TestApp;
let postgres: PrivatePostgres;
let tester: Record<string, string>;

beforeAll(async () => {
  app = await createTestApp();
  postgres = await startPrivatePostgres({
    tls: { clientCaPem: (await app.services.dbClientCa()).certPem },
  });
  await postgres.sql('create role reader login; create role ghost_owner login;');
  await postgres.sql('create database orders owner reader');
  await registerTestDatabase(app, postgres, { name: 'pg', protocol: 'postgres' });
  await createDatabaseRole(app, 'pg-tester', {
    db_users: ['reader', 'nobody'],
    db_names: ['orders', 'missing'],
    rules: [{ resources: ['connection_diagnostic'], verbs: ['create', 'read'] }],
  });
  tester = await app.signIn(['pg-tester'], 'tess');
}, 120_000);

afterAll(async () => {
  await app?.close();
  await postgres?.destroy();
});

async function diagnosis(body: Partial<ConnectionDiagnosticRequest>) {
  const res = await app.server.inject({
    method: 'POST',
    url: apiPaths.connectionDiagnostics('test-cluster'),
    payload: { resource_kind: 'db', resource_name: 'pg', ...body },
    headers: tester,
  });
  expect(res.statusCode, res.body).toBe(200);
  return connectionDiagnosticSchema.parse(res.json());
}

const steps = (traces: { trace_type: string; status: string }[]) =>
  traces.map((trace) => `${trace.trace_type}:${trace.status}`);

describe('the database connection test signs in', () => {
  it('as the database user, into the database, audited as the caller’s session', async () => {
    const result = await diagnosis({ database_user: 'reader', database_name: 'orders' });
    expect(steps(result.traces)).toEqual([
      'rbac_database:success',
      'rbac_database_login:success',
      'connectivity:success',
      'database_db_user:success',
      'database_db_name:success',
    ]);
    expect(result).toMatchObject({ success: true, message: 'success' });
    await vi.waitFor(async () => {
      const { events } = await app.audit.search({
        from: new Date(0),
        to: new Date(Date.now() + 60_000),
        limit: 1000,
      });
      expect(events).toContainEqual(
        expect.objectContaining({ code: 'TDB00I', user: 'tess', db_user: 'reader' }),
      );
    });
  });

  it('says which part failed: a user the database does not have, a database it does not have', async () => {
    const noUser = await diagnosis({ database_user: 'nobody', database_name: 'orders' });
    expect(steps(noUser.traces).slice(3)).toEqual(['database_db_user:failed']);
    expect(noUser.message).toMatch(/nobody/);
    const noName = await diagnosis({ database_user: 'reader', database_name: 'missing' });
    expect(steps(noName.traces).slice(3)).toEqual([
      'database_db_user:success',
      'database_db_name:failed',
    ]);
    expect(noName.message).toMatch(/database "missing" does not exist/);
  });
});
