import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditEventInput, AuditStore, AuditStoredQuery } from './audit.types.js';
import { AuditBadParameterError, InvalidStartKeyError } from './audit.types.js';
import { SignedCursorAuditStore } from './signed-cursor.js';
import { at, times, type ConformanceContext } from './audit.conformance.shared.testkit.js';

/** readStored: the log in the order it was stored, for `postern audit export`. */
export function describeStoredReads(ctx: ConformanceContext): void {
  let store: AuditStore;
  beforeEach(() => {
    ({ store } = ctx);
  });
  // One at a time: the order of the calls is the order stored (emitAll writes 50 at once).
  const emitInOrder = async (inputs: AuditEventInput[], into: AuditStore = store) => {
    const out: AuditEvent[] = [];
    for (const input of inputs) out.push(await into.emit(input));
    return out;
  };
  const event = (ms: number, type = 'e') => ({ event: type, code: 'C', time: at(ms) });
  /** Reads every page from `startKey`: the events' times, and the position after them. */
  const readAll = async (query: Omit<AuditStoredQuery, 'limit'>, limit = 2, from = store) => {
    const seen: number[] = [];
    let startKey = query.startKey;
    for (;;) {
      const page = await from.readStored({ ...query, limit, ...(startKey ? { startKey } : {}) });
      seen.push(...times(page.events));
      startKey = page.startKey || undefined;
      if (page.events.length < limit) return { seen, startKey };
    }
  };

  describe('readStored', () => {
    it('reads in the order stored, not by time, and goes on from its position at the end', async () => {
      await emitInOrder([5, 1, 3, 2, 4].map((ms) => event(ms)));
      const { seen, startKey } = await readAll({});
      expect(seen).toEqual([5, 1, 3, 2, 4]);
      expect(startKey).toBeTruthy();
      // Nothing new: the same position back, not ''.
      expect(await store.readStored({ limit: 5, startKey: startKey! })).toEqual({
        events: [],
        startKey,
      });
      // Stored late, though it happened before them all: it comes after the position.
      await emitInOrder([event(-60_000), event(6)]);
      expect((await readAll({ startKey: startKey! })).seen).toEqual([-60_000, 6]);
    });

    it('without a position, starts at the first event that happened at or after from', async () => {
      await emitInOrder([1, 10, 2, 20, 3].map((ms) => event(ms)));
      // From the first event of time 10 on, and everything stored after it, whatever its time.
      expect((await readAll({ from: at(10) })).seen).toEqual([10, 2, 20, 3]);
      expect((await readAll({})).seen).toEqual([1, 10, 2, 20, 3]);
      expect(await store.readStored({ from: at(100), limit: 5 })).toEqual({
        events: [],
        startKey: '',
      });
    });

    it('keeps the types asked for, and goes on after the last one it read', async () => {
      await emitInOrder([event(1, 'a'), event(2, 'b'), event(3, 'a'), event(4, 'b')]);
      const first = await readAll({ eventTypes: ['a'] }, 10);
      expect(first.seen).toEqual([1, 3]);
      await emitInOrder([event(5, 'b'), event(6, 'a')]);
      const next = await readAll({ eventTypes: ['a'], startKey: first.startKey! }, 10);
      expect(next.seen).toEqual([6]);
    });

    it('reads the events of two writers over the same storage in the order stored', async () => {
      const second = await ctx.subject.openSecond();
      try {
        await emitInOrder([event(4)]);
        await emitInOrder([event(3)], second);
        await emitInOrder([event(2)]);
        await emitInOrder([event(1)], second);
        expect((await readAll({}, 3)).seen).toEqual([4, 3, 2, 1]);
        expect((await readAll({}, 3, second)).seen).toEqual([4, 3, 2, 1]);
      } finally {
        await second.close();
      }
    });

    it('refuses bad input, and through signed cursors, a position it did not sign', async () => {
      await emitInOrder([event(1), event(2)]);
      for (const bad of [{ limit: 0 }, { limit: 5001 }, { limit: 1, from: new Date(NaN) }]) {
        await expect(store.readStored(bad)).rejects.toBeInstanceOf(AuditBadParameterError);
      }
      const signed = new SignedCursorAuditStore(store, randomBytes(32));
      const { startKey } = await signed.readStored({ limit: 1 });
      expect((await signed.readStored({ limit: 5, startKey })).events).toHaveLength(1);
      const unsigned = (await store.readStored({ limit: 1 })).startKey;
      await expect(signed.readStored({ limit: 1, startKey: unsigned })).rejects.toBeInstanceOf(
        InvalidStartKeyError,
      );
    });
  });
}
