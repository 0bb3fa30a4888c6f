import { afterAll, describe, expect, it } from 'vitest';
import { createPool, inTransaction } from './pg-helpers.js';
import { testPostgresUrl } from './testing/postgres.testkit.js';

const pool = createPool(testPostgresUrl, 2);
afterAll(() => pool.end());

describe('inTransaction', () => {
  it('a connection that dies mid-transaction fails the call, not the process', async () => {
    const unhandled: unknown[] = [];
    const onUncaught = (error: unknown) => unhandled.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const call = inTransaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // The server ends this connection (as a restart would) while it runs a statement.
        const killer = createPool(testPostgresUrl, 1);
        setTimeout(() => {
          void killer
            .query('SELECT pg_terminate_backend($1)', [rows[0]!.pid])
            .finally(() => killer.end());
        }, 100);
        await client.query('SELECT pg_sleep(5)');
      });
      await expect(call).rejects.toThrow(/terminat/);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled).toEqual([]);
      // The broken connection was dropped: the pool still answers.
      expect((await pool.query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
