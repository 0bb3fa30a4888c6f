import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { verifyAuditChain } from './audit-chain.js';
import { AuditBatcher } from './audit-batcher.js';
import { SqliteAuditStore } from './audit.sqlite.js';
import { backgroundAuditWritten } from './emit.js';

let dir: string;
let store: SqliteAuditStore;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-batcher-'));
  store = new SqliteAuditStore(path.join(dir, 'audit.db'), 'test-cluster');
});
afterEach(async () => {
  vi.restoreAllMocks();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** Every event, oldest first (search answers newest first). */
const everything = async () =>
  (
    await store.search({ from: new Date(0), to: new Date(Date.now() + 60_000), limit: 1000 })
  ).events.reverse();

describe('AuditBatcher', () => {
  it('writes a burst as one batch after the delay, in order, each stamped when it was added', async () => {
    const batches = vi.spyOn(store, 'emitBatch');
    const batcher = new AuditBatcher(store, { maxDelayMs: 30 });
    const before = Date.now();
    for (let n = 0; n < 20; n += 1) batcher.add('TDB02I', { user: 'alice', query: `select ${n}` });
    expect(await everything()).toEqual([]);
    await vi.waitFor(async () => expect(await everything()).toHaveLength(20));
    expect(batches).toHaveBeenCalledTimes(1);
    const events = await everything();
    expect(events.map((event) => event.query)).toEqual(
      Array.from({ length: 20 }, (_, n) => `select ${n}`),
    );
    expect(events[0]).toMatchObject({ event: 'db.session.query', code: 'TDB02I' });
    expect(Date.parse(events[0]!.time)).toBeGreaterThanOrEqual(before);
    expect(await verifyAuditChain(store)).toEqual({ verified: 20, unchained: 0 });
  });

  it('writes at once when the batch is full, and flush writes the rest', async () => {
    const batches = vi.spyOn(store, 'emitBatch');
    const batcher = new AuditBatcher(store, { maxDelayMs: 60_000, maxEvents: 5 });
    for (let n = 0; n < 7; n += 1) batcher.add('TDB02I', { query: String(n) });
    await backgroundAuditWritten();
    expect(await everything()).toHaveLength(5);
    expect(batcher.queued).toBe(2);
    await batcher.flush();
    expect((await everything()).map((event) => event.query)).toEqual([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
    expect(batches.mock.calls.map(([batch]) => batch.length)).toEqual([5, 2]);
  });

  it('reports a batch the store refuses as a warning, never an unhandled rejection', async () => {
    const warnings: string[] = [];
    vi.spyOn(process, 'emitWarning').mockImplementation((warning) => {
      warnings.push(String(warning));
    });
    vi.spyOn(store, 'emitBatch').mockRejectedValue(new Error('disk full'));
    const batcher = new AuditBatcher(store);
    batcher.add('TDB02I', { query: 'a' });
    batcher.add('TDB02I', { query: 'b' });
    await batcher.flush();
    expect(warnings).toEqual(['audit event TDB02I (and 1 more) was not written: disk full']);
  });
});
