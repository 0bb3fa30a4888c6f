import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdSqliteLock } from '../../../testing/sqlite-lock.testkit.js';
import { SqliteAuditStore } from '../audit.sqlite.js';
import { verifyAuditChain } from '../audit-chain.js';
import type { AuditEvent, AuditEventInput } from '../audit.types.js';
import { AuditUnavailableError } from './audit-health.js';
import { SpooledAuditStore, type AuditSpoolOptions } from './spooled-audit-store.js';

let dir: string;
let auditFile: string;
let spoolDir: string;
const logged: string[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-spool-'));
  auditFile = path.join(dir, 'audit.db');
  spoolDir = path.join(dir, 'audit-spool');
  logged.length = 0;
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const options = (extra: Partial<AuditSpoolOptions> = {}): AuditSpoolOptions => ({
  dir: spoolDir,
  maxBytes: 1024 * 1024,
  onFailure: 'refuse',
  clusterName: 'c1',
  log: (level, message) => logged.push(`${level}: ${message}`),
  retry: { firstDelayMs: 20, maxDelayMs: 100 },
  ...extra,
});

const event = (n: number) => ({ event: 'exec', code: 'T3002I', user: 'alice', n });

async function allEvents(store: { search: SqliteAuditStore['search'] }): Promise<AuditEvent[]> {
  const found = await store.search({
    from: new Date(0),
    to: new Date(Date.now() + 60_000),
    limit: 1000,
    order: 'asc',
  });
  return found.events;
}

async function eventually<T>(read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  const giveUp = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (ok(value) || Date.now() > giveUp) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A real SQLite store whose answers are lost: each of the next `lose` writes is stored, then
 * fails, as when the database goes away between its commit and its reply.
 */
class AnswerLostStore extends SqliteAuditStore {
  lose = 0;
  private answered<T>(result: T): T {
    if (this.lose === 0) return result;
    this.lose -= 1;
    throw new Error('Connection terminated unexpectedly');
  }
  override async emit(input: AuditEventInput) {
    return this.answered(await super.emit(input));
  }
  override async emitBatch(inputs: readonly AuditEventInput[]) {
    return this.answered(await super.emitBatch(inputs));
  }
  override async replay(events: readonly AuditEvent[]) {
    return this.answered(await super.replay(events));
  }
}

const spoolLines = async () =>
  (await readFile(path.join(spoolDir, 'events.jsonl'), 'utf8').catch(() => ''))
    .split('\n')
    .filter(Boolean).length;

describe('SpooledAuditStore', () => {
  it('spools while the audit file is locked, then stores in order and says when it was degraded', async () => {
    const store = await SpooledAuditStore.open(new SqliteAuditStore(auditFile, 'c1'), options());
    await store.emit(event(0));
    const lock = await holdSqliteLock(auditFile);
    const before = Date.now();
    try {
      for (let n = 1; n <= 3; n++) await store.emit(event(n));
      expect(store.degraded).toBe(true);
      expect(await spoolLines()).toBe(3);
      // Still locked: the drainer keeps them, nothing is lost or reordered.
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect((await allEvents(store)).map((e) => e.n)).toEqual([0]);
    } finally {
      await lock.release();
    }
    const events = await eventually(
      () => allEvents(store),
      (list) => list.some((e) => e.code === 'TPOS070W'),
    );
    expect(events.filter((e) => e.code === 'T3002I').map((e) => e.n)).toEqual([0, 1, 2, 3]);
    const degraded = events.find((e) => e.code === 'TPOS070W')!;
    expect(degraded).toMatchObject({ event: 'audit.degraded', spooled: 3, lost: 0 });
    const since = Date.parse(degraded.degraded_since as string);
    const until = Date.parse(degraded.degraded_until as string);
    expect(since).toBeGreaterThanOrEqual(before - 5);
    expect(until).toBeGreaterThan(since);
    expect(store.degraded).toBe(false);
    expect(await spoolLines()).toBe(0);
    await store.emit(event(4));
    expect((await allEvents(store)).at(-1)?.n).toBe(4);
    await store.close();
  });

  it('stores an event once when its write was stored but the answer was lost, then or on replay', async () => {
    const inner = new AnswerLostStore(auditFile, 'c1');
    const store = await SpooledAuditStore.open(inner, options());
    await store.emit(event(1));
    // Lost: the first write of event 2 (it goes to the spool) and its first replay.
    inner.lose = 2;
    const told = await store.emit(event(2));
    expect(store.degraded).toBe(true);
    await store.emitBatch([event(3), event(4)]);
    const events = await eventually(
      () => allEvents(store),
      (list) => list.some((e) => e.code === 'TPOS070W'),
    );
    expect(inner.lose).toBe(0);
    expect(events.filter((e) => e.code === 'T3002I').map((e) => e.n)).toEqual([1, 2, 3, 4]);
    expect(events.find((e) => e.n === 2)).toEqual(told);
    expect(await verifyAuditChain(inner)).toEqual({ verified: 5, unchained: 0 });
    await store.close();
  });

  it('keeps events of a closed store across a restart and stores them at the next start', async () => {
    const inner = new SqliteAuditStore(auditFile, 'c1');
    const first = await SpooledAuditStore.open(
      inner,
      options({ retry: { firstDelayMs: 60_000, maxDelayMs: 60_000 } }),
    );
    await first.emit(event(1));
    await inner.close();
    const spooled = await first.emit(event(2));
    await first.emit(event(3));
    expect(spooled).toMatchObject({ n: 2, cluster_name: 'c1' });
    await first.close();
    expect(await spoolLines()).toBe(2);

    const second = await SpooledAuditStore.open(new SqliteAuditStore(auditFile, 'c1'), options());
    const events = await eventually(
      () => allEvents(second),
      (list) => list.some((e) => e.code === 'TPOS070W'),
    );
    const stored = events.filter((e) => e.code === 'T3002I');
    expect(stored.map((e) => e.n)).toEqual([1, 2, 3]);
    // The spooled event is stored as it was told to the caller: same uid and time.
    expect(stored[1]).toMatchObject({ uid: spooled.uid, time: spooled.time });
    expect(events.find((e) => e.code === 'TPOS070W')?.degraded_since).toBe(spooled.time);
    await second.close();
  });

  it('refuses new sessions once the spool is full (refuse), and lets them run (continue)', async () => {
    const inner = new SqliteAuditStore(auditFile, 'c1');
    await inner.close();
    const refusing = await SpooledAuditStore.open(inner, options({ maxBytes: 600 }));
    expect(() => refusing.assertCanAudit()).not.toThrow();
    let refused: unknown;
    for (let n = 0; n < 20 && !refused; n++) {
      refused = await refusing.emit({ ...event(n), pad: 'x'.repeat(100) }).then(
        () => undefined,
        (error: unknown) => error,
      );
    }
    expect(refused).toBeInstanceOf(AuditUnavailableError);
    expect(() => refusing.assertCanAudit()).toThrow(
      'audit storage is unavailable; new sessions are refused until it recovers',
    );
    await refusing.close();

    await rm(spoolDir, { recursive: true });
    const continuing = await SpooledAuditStore.open(
      inner,
      options({ maxBytes: 600, onFailure: 'continue' }),
    );
    for (let n = 0; n < 20; n++) await continuing.emit({ ...event(n), pad: 'x'.repeat(100) });
    expect(() => continuing.assertCanAudit()).not.toThrow();
    expect(logged.some((line) => line.includes('event LOST'))).toBe(true);
    await continuing.close();
  });

  it('waits out a lock of a moment (an admin command writing) without degrading', async () => {
    const store = await SpooledAuditStore.open(new SqliteAuditStore(auditFile, 'c1'), options());
    const lock = await holdSqliteLock(auditFile);
    setTimeout(() => void lock.release(), 100);
    await store.emit(event(1));
    expect(store.degraded).toBe(false);
    expect(await spoolLines()).toBe(0);
    expect((await allEvents(store)).map((e) => e.code)).toEqual(['T3002I']);
    await store.close();
  });

  it("does not spool bad input: that is the caller's error", async () => {
    const store = await SpooledAuditStore.open(new SqliteAuditStore(auditFile, 'c1'), options());
    await expect(store.emit({ event: '', code: 'T3002I' })).rejects.toMatchObject({
      code: 'bad_parameter',
    });
    expect(store.degraded).toBe(false);
    await store.close();
  });
});
