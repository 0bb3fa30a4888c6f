import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdSqliteLock } from '../../testing/sqlite-lock.testkit.js';
import { SqliteAuditStore } from './audit.sqlite.js';
import { retryingWhileBusy } from './busy-retry.js';

let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-audit-busy-'));
  file = path.join(dir, 'audit.db');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('retryingWhileBusy (the audit store of admin commands)', () => {
  it('waits out a short lock held by another process instead of failing', async () => {
    const plain = new SqliteAuditStore(file, 'c1');
    const store = retryingWhileBusy(plain, { deadlineMs: 5000 });
    const lock = await holdSqliteLock(file);
    // Without the retry the store's few-millisecond busy timeout fails the emit at once.
    await expect(plain.emit({ event: 'exec', code: 'T3002I', n: 0 })).rejects.toMatchObject({
      code: expect.stringMatching(/^SQLITE_BUSY/),
    });
    const emitted = store.emit({ event: 'exec', code: 'T3002I', n: 1 });
    setTimeout(() => void lock.release(), 200);
    await expect(emitted).resolves.toMatchObject({ n: 1 });
    const found = await store.search({
      from: new Date(0),
      to: new Date(Date.now() + 60_000),
      limit: 10,
    });
    expect(found.events.map((e) => e.n)).toEqual([1]);
    await store.close();
  });

  it('gives up with storage_busy at the deadline', async () => {
    const store = retryingWhileBusy(new SqliteAuditStore(file, 'c1'), { deadlineMs: 300 });
    const lock = await holdSqliteLock(file);
    try {
      await expect(store.emit({ event: 'exec', code: 'T3002I' })).rejects.toMatchObject({
        code: 'storage_busy',
      });
    } finally {
      await lock.release();
      await store.close();
    }
  });
});
