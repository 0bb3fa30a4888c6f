import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, ReplayableAuditStore } from './audit.types.js';
import type { AuditChainSource } from './audit-chain.js';
import { verifyAuditChain } from './audit-chain.js';
import { applyAuditRetention } from './retention.js';
import { UUID_V4, at, base, everything, times } from './audit.conformance.shared.testkit.js';
import type { ConformanceContext } from './audit.conformance.shared.testkit.js';
import type { AuditStoreUnderTest } from './audit.conformance.testkit.js';

/** Retention and the hash chain over what is kept. */
export function describeRetentionAndChain(ctx: ConformanceContext): void {
  let subject: AuditStoreUnderTest;
  let store: ReplayableAuditStore & AuditChainSource;
  beforeEach(() => {
    ({ subject, store } = ctx);
  });

  describe('retention', () => {
    // Retention removes a prefix of the write order (the hash chain's order), so these events
    // are written one after another, oldest first, as a server writes them.
    const emitInOrder = async (count: number) => {
      for (let n = 0; n < count; n += 1) await store.emit({ event: 'e', code: 'C', time: at(n) });
    };

    it('removes only events older than the cutoff, oldest first, a batch at a time', async () => {
      await emitInOrder(25);
      expect(await store.removeOlderThan(at(20), 7)).toBe(7);
      expect(await store.removeOlderThan(at(20), 7)).toBe(7);
      const left = await store.search({ ...everything, limit: 100, order: 'asc' });
      expect(times(left.events)).toEqual([...Array(11).keys()].map((n) => n + 14));
    });

    it('applyAuditRetention loops over batches until nothing older is left', async () => {
      await emitInOrder(30);
      const removed = await applyAuditRetention(store, 10, base + 35, 4);
      expect(removed).toBe(25);
      const left = await store.search({ ...everything, limit: 100, order: 'asc' });
      expect(times(left.events)).toEqual([25, 26, 27, 28, 29]);
    });
  });

  describe('hash chain', () => {
    const verify = () => verifyAuditChain(store);
    const tenEvents = async () => {
      const out: AuditEvent[] = [];
      for (let n = 0; n < 10; n += 1)
        out.push(await store.emit({ event: 'e', code: 'C', user: `user${n}`, time: at(n) }));
      return out;
    };

    it('stores a batch in order in one write, chained through it and with single events', async () => {
      await store.emit({ event: 'e', code: 'C', n: 0, time: at(0) });
      const batch = await store.emitBatch(
        [1, 2, 3].map((n) => ({ event: 'e', code: 'C', n, time: at(n) })),
      );
      expect(batch.map((event) => event.n)).toEqual([1, 2, 3]);
      expect(batch.every((event) => UUID_V4.test(event.uid))).toBe(true);
      await store.emit({ event: 'e', code: 'C', n: 4, time: at(4) });
      expect(await store.emitBatch([])).toEqual([]);
      const found = await store.search({ from: at(0), to: at(10), limit: 10 });
      // Newest first, as every search answers.
      expect(found.events.map((event) => event.n)).toEqual([4, 3, 2, 1, 0]);
      expect(found.events.slice(1, 4)).toEqual([...batch].reverse());
      expect(await verify()).toEqual({ verified: 5, unchained: 0 });
    });

    it('replays events once: those already stored are skipped, the rest stored and chained in order', async () => {
      const first = await store.emit({ event: 'e', code: 'C', n: 1, time: at(1) });
      const [second] = await store.emitBatch([{ event: 'e', code: 'C', n: 2, time: at(2) }]);
      // What a spool holds: events completed before their write, whose outcome was unknown.
      const third = { event: 'e', code: 'C', n: 3, time: at(3).toISOString(), uid: randomUUID() };
      const twin = { ...first, uid: randomUUID() };
      await store.replay([first, second!, third, twin] as AuditEvent[]);
      await store.replay([third as AuditEvent]);
      const found = await store.search({ ...everything, limit: 10, order: 'asc' });
      expect(found.events).toEqual([
        first,
        twin,
        second,
        { ...third, cluster_name: 'test-cluster' },
      ]);
      expect(await verify()).toEqual({ verified: 4, unchained: 0 });
    });

    it('chains every event, also from parallel writers on two stores, and search never shows the chain', async () => {
      const second = await subject.openSecond();
      try {
        await Promise.all(
          Array.from({ length: 40 }, (_, n) =>
            (n % 2 ? second : store).emit({ event: 'e', code: 'C', n }),
          ),
        );
      } finally {
        await second.close();
      }
      expect(await verify()).toEqual({ verified: 40, unchained: 0 });
      const found = await store.search({
        from: new Date(0),
        to: new Date(Date.now() + 1000),
        limit: 1,
      });
      expect(Object.keys(found.events[0] ?? {})).not.toEqual(expect.arrayContaining(['hash']));
      expect(JSON.stringify(found.events)).not.toMatch(/prev_hash|"hash"/);
    });

    it('names the first row altered by a direct UPDATE', async () => {
      const events = await tenEvents();
      await subject.alterEvent(events[4]!.uid, 'user4', 'mallory');
      await subject.alterEvent(events[7]!.uid, 'user7', 'mallory');
      const report = await verify();
      expect(report.verified).toBe(4);
      expect(report.problem).toMatchObject({
        uid: events[4]!.uid,
        time: events[4]!.time,
        reason: expect.stringMatching(/altered/),
      });
    });

    it('names the place of a row deleted from the middle', async () => {
      const events = await tenEvents();
      await subject.deleteEvent(events[5]!.uid);
      const report = await verify();
      expect(report.verified).toBe(5);
      expect(report.problem).toMatchObject({
        uid: events[6]!.uid,
        reason: expect.stringMatching(/removed/),
      });
      expect(report.problem?.reason).toMatch(/between position \d+ and this row/);
    });

    it('notices the newest row removed', async () => {
      const events = await tenEvents();
      await subject.deleteEvent(events[9]!.uid);
      const report = await verify();
      expect(report.problem).toMatchObject({
        uid: events[8]!.uid,
        reason: expect.stringMatching(/after this one were removed/),
      });
    });

    it('still verifies after retention removed the oldest rows, from the anchor it kept', async () => {
      await tenEvents();
      expect(await store.removeOlderThan(at(4), 100)).toBe(4);
      expect(await verify()).toEqual({ verified: 6, unchained: 0 });
      await store.emit({ event: 'e', code: 'C', time: at(20) });
      expect(await store.removeOlderThan(at(100), 100)).toBe(7);
      expect(await verify()).toEqual({ verified: 0, unchained: 0 });
      await store.emit({ event: 'e', code: 'C' });
      expect(await verify()).toEqual({ verified: 1, unchained: 0 });
    });
  });
}
