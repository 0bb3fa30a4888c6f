import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyAuditChain } from './audit-chain.js';
import { runAuditStoreConformance } from './audit.conformance.testkit.js';
import { SqliteAuditStore } from './audit.sqlite.js';
import { SMALL_SHAPE } from './audit-text.sqlite.testkit.js';
import { sqliteStoreUnderTest } from './audit.sqlite.testkit.js';
import { ThreadedSqliteAuditStore } from './threaded-sqlite-audit-store.js';
import { openAuditStore } from './index.js';

// The writer thread runs compiled code: these tests take it from the build (`npm test` builds
// before it runs vitest), with this thread's side from source.
const workerEntry = new URL('../../../dist/modules/audit/audit-writer.worker.js', import.meta.url);
if (!ThreadedSqliteAuditStore.available(workerEntry)) {
  throw new Error(`${workerEntry.pathname} is missing: run npm run build first`);
}

runAuditStoreConformance('sqlite with a writer thread', (clusterName) =>
  sqliteStoreUnderTest(
    clusterName,
    (file, name) =>
      new ThreadedSqliteAuditStore(file, name, { textIndexShape: SMALL_SHAPE, workerEntry }),
  ),
);

describe('sqlite audit store with a writer thread', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'postern-audit-thread-'));
    file = path.join(dir, 'audit.db');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  const statement = (n: number) => ({
    event: 'db.session.query',
    code: 'TDB02I',
    user: 'alice',
    sid: 'b1f0c6d2-5a4e-4c1e-9b7a-2f3d4c5b6a79',
    db_query: `SELECT abalance FROM pgbench_accounts WHERE aid = ${n};`,
  });

  it('keeps the event loop free while a large batch is written', async () => {
    const store = new ThreadedSqliteAuditStore(file, 'c', { workerEntry });
    const inThread = new SqliteAuditStore(path.join(dir, 'same-work.db'), 'c');
    try {
      await store.emit(statement(-1)); // the writer thread is up
      // Timing beside the rest of the suite on two cores is noisy: the best of three rounds is
      // what the design gives, a round slowed by a neighbour is not.
      const shares: number[] = [];
      for (let round = 0; round < 3; round += 1) {
        const batch = Array.from({ length: 20_000 }, (_, n) => statement(round * 20_000 + n));
        // The same batch written on this thread holds it for the whole write.
        const started = performance.now();
        await inThread.emitBatch(batch);
        const heldInThread = performance.now() - started;
        // With the writer thread, this thread only completes the events; timers keep firing.
        let longestGap = 0;
        let last = performance.now();
        const ticker = setInterval(() => {
          const now = performance.now();
          longestGap = Math.max(longestGap, now - last);
          last = now;
        }, 1);
        await store.emitBatch(batch);
        clearInterval(ticker);
        // A hold that lasted to the end was seen by no tick: it counts too.
        longestGap = Math.max(longestGap, performance.now() - last);
        shares.push(longestGap / heldInThread);
      }
      expect(Math.min(...shares), shares.join(', ')).toBeLessThan(0.5);
      const result = await store.search({
        from: new Date(Date.now() - 60_000),
        to: new Date(Date.now() + 60_000),
        limit: 5000,
      });
      expect(result.events).toHaveLength(5000);
    } finally {
      await store.close();
      await inThread.close();
    }
  });

  it('writes in order with one hash chain, and search finds the rows the writer wrote', async () => {
    const store = new ThreadedSqliteAuditStore(file, 'c', {
      workerEntry,
      textIndexShape: SMALL_SHAPE,
    });
    try {
      const writes = [];
      for (let n = 0; n < 300; n += 30) {
        writes.push(store.emitBatch(Array.from({ length: 30 }, (_, i) => statement(n + i))));
      }
      writes.push(store.emit({ event: 'user.login', code: 'T1000I', user: 'bob' }));
      await Promise.all(writes);
      const db = new Database(file, { readonly: true });
      const queries = db
        .prepare(`SELECT json_extract(data, '$.db_query') AS q FROM audit_events ORDER BY id`)
        .pluck()
        .all();
      db.close();
      expect(queries.slice(0, 300)).toEqual(
        Array.from({ length: 300 }, (_, n) => statement(n).db_query),
      );
      expect(await verifyAuditChain(store)).toEqual({ verified: 301, unchained: 0 });
      const found = await store.search({
        from: new Date(Date.now() - 60_000),
        to: new Date(Date.now() + 60_000),
        search: 'aid = 217;',
        limit: 100,
      });
      expect(found.events.map((event) => event.db_query)).toEqual([statement(217).db_query]);
    } finally {
      await store.close();
    }
  });

  it('passes SQLite busy errors on with their code, and writes again once the lock is gone', async () => {
    const store = new ThreadedSqliteAuditStore(file, 'c', { workerEntry });
    const locker = new Database(file);
    try {
      await store.emit(statement(0));
      locker.exec('BEGIN IMMEDIATE');
      await expect(store.emit(statement(1))).rejects.toMatchObject({
        code: expect.stringMatching(/^SQLITE_BUSY/),
      });
      locker.exec('ROLLBACK');
      await store.emit(statement(2));
      const { events } = await store.search({
        from: new Date(Date.now() - 60_000),
        to: new Date(Date.now() + 60_000),
        order: 'asc',
        limit: 100,
      });
      expect(events.map((event) => event.db_query)).toEqual([
        statement(0).db_query,
        statement(2).db_query,
      ]);
    } finally {
      locker.close();
      await store.close();
    }
  });

  it('is what the server opens, and says so when the compiled writer is missing', async () => {
    // From source (this test) the writer thread's JS is not beside the module: the store says
    // so and writes in-thread; the build's store is the threaded one.
    const warnings: string[] = [];
    const store = await openAuditStore({ type: 'sqlite', path: file }, 'c', {
      writerThread: true,
      log: (_level, message) => warnings.push(message),
    });
    await store.close();
    expect(store).toBeInstanceOf(SqliteAuditStore);
    expect(warnings).toEqual([
      'audit writes stay on the main thread: the compiled writer thread is missing',
    ]);
    const built = await import(
      new URL('../../../dist/modules/audit/index.js', import.meta.url).href
    );
    const threaded = await built.openAuditStore({ type: 'sqlite', path: file }, 'c', {
      writerThread: true,
    });
    await threaded.close();
    expect(threaded.constructor.name).toBe('ThreadedSqliteAuditStore');
  });

  it('refuses writes once closed, and a new store on the file carries the chain on', async () => {
    const store = new ThreadedSqliteAuditStore(file, 'c', { workerEntry });
    const taken = store.emit(statement(0));
    const closing = store.close();
    // From the call on, not only once the writer has stopped; one close for both callers.
    await expect(store.emit(statement(1))).rejects.toThrow('the audit store is closed');
    expect(store.close()).toBe(closing);
    await closing;
    // The write taken before the close was written, not dropped.
    await taken;
    await expect(store.emit(statement(1))).rejects.toThrow('the audit store is closed');
    const again = new ThreadedSqliteAuditStore(file, 'c', { workerEntry });
    try {
      await again.emit(statement(2));
      expect(await verifyAuditChain(again)).toEqual({ verified: 2, unchained: 0 });
    } finally {
      await again.close();
    }
  });
});
