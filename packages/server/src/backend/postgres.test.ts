import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackendConformance } from './backend.conformance.testkit.js';
import { PostgresBackend } from './postgres.js';
import { expectSameEventsAcrossProcesses } from './testing/cross-process.testkit.js';
import { EventReader } from './testing/event-reader.testkit.js';
import { TestSchemas, testPostgresUrl } from './testing/postgres.testkit.js';
import { WatchFailedError } from './types.js';

// Every test gets a schema of its own (created by the backend, dropped after the test), so
// this file runs in parallel with others and again and again without collisions.
const schemas = new TestSchemas();
beforeAll(() => schemas.connect());
afterAll(() => schemas.dropAll());

runBackendConformance(
  'postgres',
  async ({ sweepIntervalMs }) => {
    const schema = schemas.newName();
    const open = () =>
      PostgresBackend.open({ url: testPostgresUrl, schema, sweepIntervalMs, pollIntervalMs: 500 });
    const backend = await open();
    return {
      backend,
      // A second instance has its own pool and LISTEN connection, as another server would.
      openPeer: open,
      cleanup: async () => {
        await backend.close();
        await schemas.drop(schema);
      },
    };
  },
  { sharedStorage: true },
);

describe('postgres backend', () => {
  it('shows this process the writes of another OS process, in one order', async () => {
    const schema = schemas.newName();
    const backend = await PostgresBackend.open({ url: testPostgresUrl, schema });
    try {
      await expectSameEventsAcrossProcesses(
        { type: 'postgres', url: testPostgresUrl, schema },
        backend,
      );
    } finally {
      await backend.close();
      await schemas.drop(schema);
    }
  });

  it('fails watchers when the LISTEN connection drops, and watches again afterwards', async () => {
    const schema = schemas.newName();
    const backend = await PostgresBackend.open({ url: testPostgresUrl, schema });
    try {
      const watcher = backend.watch(['/']);
      await watcher.ready;
      await schemas.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = $1',
        [`LISTEN "postern_kv_${schema}"`],
      );
      await expect(new EventReader(watcher).peek(5000)).rejects.toBeInstanceOf(WatchFailedError);

      const again = backend.watch(['/']);
      await again.ready;
      const item = await backend.create({ key: '/users/alice', value: '{}' });
      expect(await new EventReader(again).take(1)).toEqual([{ type: 'put', item }]);
    } finally {
      await backend.close();
      await schemas.drop(schema);
    }
  });

  it('lets several instances create the same schema at once', async () => {
    const schema = schemas.newName();
    const backends = await Promise.all(
      Array.from({ length: 4 }, () => PostgresBackend.open({ url: testPostgresUrl, schema })),
    );
    try {
      const created = await backends[0]?.create({ key: '/users/alice', value: '{}' });
      expect(await backends[3]?.get('/users/alice')).toEqual(created);
    } finally {
      await Promise.all(backends.map((backend) => backend.close()));
      await schemas.drop(schema);
    }
  });

  it('rejects a schema name that would need quoting', async () => {
    await expect(
      PostgresBackend.open({ url: testPostgresUrl, schema: 'Robert"; DROP' }),
    ).rejects.toThrow(/invalid PostgreSQL schema/);
  });
});
