import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeBehindRelay, relayedPostgres } from '../testing/relayed-postgres.testkit.js';
import type { TcpRelay } from '../testing/tcp-relay.testkit.js';
import { createPool, inTransaction, unboundedQuery, unlessUnavailable } from './pg-helpers.js';
import { StorageBusyError } from './storage-busy.js';
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

// A database gone silent (its connections frozen behind a loopback relay: a host gone, a cable
// cut) answers nothing and closes nothing. The pool's client-side timeout turns every call into
// "storage busy" instead of a request held until TCP gives up.
describe('a database gone silent', () => {
  const timeoutMs = 1000;
  let relay: TcpRelay;
  let silent: pg.Pool;

  beforeAll(async () => {
    const relayed = await relayedPostgres();
    relay = relayed.relay;
    silent = createPool(relayed.url, 2, timeoutMs);
    // Connections made while the path works, as a running server's are.
    await Promise.all([silent.query('SELECT 1'), silent.query('SELECT 2')]);
    relay.freeze();
  });

  afterAll(async () => {
    await closeBehindRelay(relay, () => silent.end());
  });

  it('fails a query as storage busy within the client timeout', async () => {
    const started = Date.now();
    await expect(unlessUnavailable(() => silent.query('SELECT 1'))).rejects.toBeInstanceOf(
      StorageBusyError,
    );
    expect(Date.now() - started).toBeLessThan(5 * timeoutMs);
  });

  it('fails a transaction without waiting again for its rollback, and drops the connection', async () => {
    const connections = silent.totalCount;
    const started = Date.now();
    const call = inTransaction(silent, async (client) => client.query('SELECT 1'));
    await expect(call).rejects.toThrow('Query read timeout');
    // One timeout (BEGIN's), not a second one for a ROLLBACK queued behind it.
    expect(Date.now() - started).toBeLessThan(1.8 * timeoutMs);
    expect(silent.totalCount).toBe(connections - 1);
  });
});

describe('unboundedQuery', () => {
  it('lets a statement outlive the pool’s client timeout (an index build)', async () => {
    const short = createPool(testPostgresUrl, 1, 200);
    try {
      await expect(short.query('SELECT pg_sleep(0.6)')).rejects.toThrow('Query read timeout');
      const { rows } = await short.query(unboundedQuery('SELECT pg_sleep(0.6), 1 AS done'));
      expect(rows[0]).toMatchObject({ done: 1 });
    } finally {
      await short.end();
    }
  });
});
