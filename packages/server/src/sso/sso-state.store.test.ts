import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryBackend } from '../backend/memory.js';
import { PostgresBackend } from '../backend/postgres.js';
import { TestSchemas, testPostgresUrl } from '../backend/testing/postgres.testkit.js';
import type { Backend } from '../backend/index.js';
import { stateTtlMs } from './sso-state-ttl.js';
import { SsoStateStore } from './sso-state.store.js';

// Single use rests on the backend's compare-and-delete; PostgreSQL is where two proxies race.
const schemas = new TestSchemas();
beforeAll(() => schemas.connect());
afterAll(() => schemas.dropAll());

const backends: [string, () => Promise<Backend>][] = [
  ['memory', async () => new MemoryBackend()],
  [
    'postgres',
    async () => PostgresBackend.open({ url: testPostgresUrl, schema: schemas.newName() }),
  ],
];

describe.each(backends)('SSO states on %s', (_name, open) => {
  it('gives a state once, even to callbacks racing, and never after its TTL', async () => {
    const backend = await open();
    let now = Date.now();
    const store = new SsoStateStore(backend, () => now);
    try {
      const id = await store.create({ kind: 'oidc', connector: 'c', redirect: '/web' });
      const results = await Promise.all([store.consume(id), store.consume(id), store.consume(id)]);
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.consume(id)).toBeNull();

      const late = await store.create({ kind: 'oidc', connector: 'c', redirect: '/web' });
      now += stateTtlMs + 1;
      expect(await store.consume(late)).toBeNull();
      expect(await store.consume('not-a-state')).toBeNull();
    } finally {
      await backend.close();
    }
  });
});
