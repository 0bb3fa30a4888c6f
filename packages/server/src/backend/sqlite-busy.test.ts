import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdSqliteLock } from '../testing/sqlite-lock.testkit.js';
import { SqliteBackend } from './sqlite.js';
import { StorageBusyError } from './storage-busy.js';

let dir: string;
let file: string;
let backend: SqliteBackend;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-busy-'));
  file = path.join(dir, 'state.db');
  backend = new SqliteBackend(file, { busyRetry: { deadlineMs: 600 } });
});

afterEach(async () => {
  await backend.close();
  await rm(dir, { recursive: true, force: true });
});

/**
 * Runs `call` from a timer while a 10 ms interval ticks, and says how long, at most, the ticks
 * waited: a synchronous wait inside the call (SQLite's own busy timeout) counts too.
 */
async function longestStall(call: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  let longest = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 10);
  await new Promise((resolve) => setTimeout(resolve, 30));
  const error = await call().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  await new Promise((resolve) => setTimeout(resolve, 30));
  clearInterval(timer);
  return { ms: longest, error };
}

describe('SqliteBackend with its file locked by another process', () => {
  it('reads go on, writes fail with StorageBusyError at the deadline, the loop never stalls', async () => {
    await backend.create({ key: '/a/one', value: '1' });
    const lock = await holdSqliteLock(file);
    try {
      expect((await backend.get('/a/one'))?.value).toBe('1');
      expect((await backend.list({ prefix: '/a/' })).items).toHaveLength(1);
      const write = await longestStall(() => backend.create({ key: '/a/two', value: '2' }));
      expect(write.error).toBeInstanceOf(StorageBusyError);
      // SQLite's old 5 s busy timeout held the loop for the whole wait.
      expect(write.ms).toBeLessThan(250);
      await expect(backend.delete('/a/one')).rejects.toMatchObject({ code: 'storage_busy' });
    } finally {
      await lock.release();
    }
    await backend.create({ key: '/a/two', value: '2' });
    expect((await backend.list({ prefix: '/a/' })).items.map((i) => i.value)).toEqual(['1', '2']);
  });

  it('deleting a missing key answers not found without waiting for the lock', async () => {
    const lock = await holdSqliteLock(file);
    try {
      const started = performance.now();
      await expect(backend.delete('/a/none')).rejects.toMatchObject({ code: 'not_found' });
      expect(performance.now() - started).toBeLessThan(500);
    } finally {
      await lock.release();
    }
  });
});
