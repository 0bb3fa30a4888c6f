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
});
