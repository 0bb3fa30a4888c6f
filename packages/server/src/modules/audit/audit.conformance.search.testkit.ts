import { randomBytes } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  ReplayableAuditStore,
} from './audit.types.js';
import { AuditBadParameterError, InvalidStartKeyError } from './audit.types.js';
import type { AuditChainSource } from './audit-chain.js';
import { SignedCursorAuditStore } from './signed-cursor.js';
import {
  UUID_V4,
  at,
  everything,
  seedingTestMs,
  times,
} from './audit.conformance.shared.testkit.js';
import type { ConformanceContext } from './audit.conformance.shared.testkit.js';
import type { AuditStoreUnderTest } from './audit.conformance.testkit.js';

/** Emit, search, signed cursors and the query plans of searches. */
export function describeSearch(ctx: ConformanceContext): void {
  let subject: AuditStoreUnderTest;
  let store: ReplayableAuditStore & AuditChainSource;
  const emitAll = (inputs: AuditEventInput[]) => ctx.emitAll(inputs);
  beforeEach(() => {
    ({ subject, store } = ctx);
  });

  describe('emit', () => {
    it('assigns uid, time and cluster_name, and search returns exactly what emit returned', async () => {
      const before = Date.now();
      const emitted = await store.emit({
        event: 'user.login',
        code: 'T1000I',
        user: 'alice',
        method: 'local',
        nested: { ok: true },
      });
      expect(emitted).toEqual({
        event: 'user.login',
        code: 'T1000I',
        user: 'alice',
        method: 'local',
        nested: { ok: true },
        uid: expect.stringMatching(UUID_V4),
        time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        cluster_name: 'test-cluster',
      });
      expect(Date.parse(emitted.time)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(emitted.time)).toBeLessThanOrEqual(Date.now());
      const found = await store.search({
        from: new Date(before),
        to: new Date(Date.now() + 1),
        limit: 10,
      });
      expect(found).toEqual({ events: [emitted], startKey: '' });
    });

    it('keeps a given time, uid, session id and cluster name', async () => {
      const emitted = await store.emit({
        event: 'session.start',
        code: 'T2000I',
        time: at(5),
        uid: 'fixed-uid',
        sid: 's-1',
        cluster_name: 'leaf',
      });
      expect(emitted).toMatchObject({
        time: '2026-03-01T12:00:00.005Z',
        uid: 'fixed-uid',
        sid: 's-1',
        cluster_name: 'leaf',
      });
      expect((await store.emit({ event: 'a', code: 'b' })).uid).not.toBe(
        (await store.emit({ event: 'a', code: 'b' })).uid,
      );
    });

    it('rejects an event without a type or code, or with a bad time', async () => {
      const bad = [
        { event: '', code: 'X' },
        { event: 'x', code: undefined as unknown as string },
        { event: 'x', code: 'X', time: new Date('nope') },
        { event: 'x', code: 'X', user: 42 as unknown as string },
      ];
      for (const input of bad) {
        const error = await store.emit(input).catch((e: unknown) => e);
        expect(error, JSON.stringify(input)).toBeInstanceOf(AuditBadParameterError);
        expect(error).toMatchObject({ code: 'bad_parameter' });
      }
    });
  });

  describe('search', () => {
    it('covers [from, to): an event exactly at from is in, one exactly at to is out', async () => {
      await emitAll(
        [-1, 0, 1, 999, 1000, 1001].map((ms) => ({ event: 'e', code: 'C', time: at(ms) })),
      );
      const { events } = await store.search({
        from: at(0),
        to: at(1000),
        limit: 100,
        order: 'asc',
      });
      expect(times(events)).toEqual([0, 1, 999]);
      expect((await store.search({ from: at(0), to: at(0), limit: 10 })).events).toEqual([]);
    });

    it('is newest first by default and oldest first with order asc; ties keep insertion order', async () => {
      for (const [ms, n] of [
        [20, 1],
        [10, 2],
        [20, 3],
        [30, 4],
        [20, 5],
      ] as const) {
        await store.emit({ event: 'e', code: 'C', time: at(ms), n });
      }
      const desc = await store.search({ ...everything, limit: 10 });
      expect(desc.events.map((event) => event.n)).toEqual([4, 5, 3, 1, 2]);
      const asc = await store.search({ ...everything, limit: 10, order: 'asc' });
      expect(asc.events.map((event) => event.n)).toEqual([2, 1, 3, 5, 4]);
    });

    it('filters by event types', async () => {
      await emitAll(
        ['user.login', 'session.start', 'session.end', 'user.login', 'role.created'].map(
          (event, i) => ({ event, code: 'C', time: at(i) }),
        ),
      );
      const { events } = await store.search({
        ...everything,
        limit: 10,
        eventTypes: ['user.login', 'role.created'],
      });
      expect(events.map((event) => event.event)).toEqual([
        'role.created',
        'user.login',
        'user.login',
      ]);
      expect(
        (await store.search({ ...everything, limit: 10, eventTypes: ['nothing.like.this'] }))
          .events,
      ).toEqual([]);
      expect(
        (await store.search({ ...everything, limit: 10, eventTypes: [] })).events,
      ).toHaveLength(5);
    });

    it(
      'pages through 2,500 events sharing milliseconds, each exactly once, in both orders',
      async () => {
        // Ten events per millisecond, emitted in a scrambled time order, so ids and times disagree.
        const inputs = Array.from({ length: 2500 }, (_, i) => ({
          event: i % 3 ? 'session.data' : 'session.end',
          code: 'C',
          time: at((((i * 7919) % 2500) / 10) | 0),
          i,
        }));
        const emitted = await emitAll(inputs);
        const allUids = emitted.map((event) => event.uid).sort();

        for (const order of ['desc', 'asc'] as const) {
          const seen: AuditEvent[] = [];
          const sizes: number[] = [];
          let startKey = '';
          do {
            const page = await store.search({ ...everything, limit: 1000, order, startKey });
            seen.push(...page.events);
            sizes.push(page.events.length);
            startKey = page.startKey;
          } while (startKey && sizes.length < 10);
          expect(sizes, order).toEqual([1000, 1000, 500]);
          expect(seen.map((event) => event.uid).sort(), order).toEqual(allUids);
          const ms = times(seen);
          ms.slice(1).forEach((t, i) =>
            order === 'desc'
              ? expect(t).toBeLessThanOrEqual(ms[i] as number)
              : expect(t).toBeGreaterThanOrEqual(ms[i] as number),
          );
        }

        // The same with a type filter and a page size that splits millisecond groups.
        const ends: AuditEvent[] = [];
        let startKey = '';
        do {
          const page = await store.search({
            ...everything,
            limit: 123,
            eventTypes: ['session.end'],
            startKey,
          });
          ends.push(...page.events);
          startKey = page.startKey;
        } while (startKey);
        expect(ends.map((event) => event.uid).sort()).toEqual(
          emitted
            .filter((event) => event.event === 'session.end')
            .map((event) => event.uid)
            .sort(),
        );
      },
      seedingTestMs,
    );

    it('hands back an empty startKey when the page is exactly the last one', async () => {
      await emitAll([1, 2, 3, 4].map((ms) => ({ event: 'e', code: 'C', time: at(ms) })));
      const first = await store.search({ ...everything, limit: 2 });
      expect(first.startKey).not.toBe('');
      const second = await store.search({ ...everything, limit: 2, startKey: first.startKey });
      expect(times(second.events)).toEqual([2, 1]);
      expect(second.startKey).toBe('');
    });

    it('accepts limits 1..5000 and rejects anything else with bad_parameter', async () => {
      await store.emit({ event: 'e', code: 'C', time: at(0) });
      expect((await store.search({ ...everything, limit: 1 })).events).toHaveLength(1);
      expect((await store.search({ ...everything, limit: 5000 })).events).toHaveLength(1);
      for (const limit of [0, -1, 5001, 1.5, Number.NaN]) {
        const error = await store.search({ ...everything, limit }).catch((e: unknown) => e);
        expect(error, String(limit)).toBeInstanceOf(AuditBadParameterError);
        expect((error as Error).message).toMatch(/limit/);
      }
      await expect(store.search({ from: at(10), to: at(0), limit: 10 })).rejects.toMatchObject({
        code: 'bad_parameter',
      });
    });

    it('rejects a malformed startKey with bad_parameter', async () => {
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const startKey of [
        'not a key',
        'not-a-key',
        encode({ t: 1 }),
        encode({ t: 'x', id: '1' }),
        encode({ t: 1, id: '0' }),
        encode([1, 2]),
        'x'.repeat(600),
      ]) {
        const error = await store
          .search({ ...everything, limit: 10, startKey })
          .catch((e: unknown) => e);
        expect(error, startKey).toBeInstanceOf(InvalidStartKeyError);
        expect(error).toMatchObject({
          code: 'bad_parameter',
          message: expect.stringMatching(/startKey/),
        });
      }
    });
  });

  describe('signed cursors (SignedCursorAuditStore over this store)', () => {
    const secret = randomBytes(32);
    const alter = (key: string, at: number) =>
      key.slice(0, at) + (key[at] === 'A' ? 'B' : 'A') + key.slice(at + 1);

    it('pages with the cursors it signed, as the store itself does', async () => {
      await emitAll([1, 2, 3, 4, 5].map((ms) => ({ event: 'e', code: 'C', time: at(ms) })));
      const signed = new SignedCursorAuditStore(store, secret);
      const seen: number[] = [];
      let startKey = '';
      do {
        const page = await signed.search({ ...everything, limit: 2, startKey });
        seen.push(...times(page.events));
        startKey = page.startKey;
      } while (startKey);
      expect(seen).toEqual([5, 4, 3, 2, 1]);
    });

    it('refuses a cursor altered, unsigned, or signed with another secret', async () => {
      await emitAll([1, 2, 3].map((ms) => ({ event: 'e', code: 'C', time: at(ms) })));
      const signed = new SignedCursorAuditStore(store, secret);
      const { startKey } = await signed.search({ ...everything, limit: 1 });
      const [key, mac] = startKey.split('.') as [string, string];
      const unsigned = (await store.search({ ...everything, limit: 1 })).startKey;
      const elsewhere = new SignedCursorAuditStore(store, randomBytes(32));
      const foreign = (await elsewhere.search({ ...everything, limit: 1 })).startKey;
      const refused = [
        `${alter(key, 2)}.${mac}`,
        `${key}.${alter(mac, 5)}`,
        unsigned,
        `${unsigned}.`,
        foreign,
      ];
      for (const bad of refused) {
        const error = await signed
          .search({ ...everything, limit: 1, startKey: bad })
          .catch((e: unknown) => e);
        expect(error, bad).toBeInstanceOf(InvalidStartKeyError);
        expect((error as AuditBadParameterError).code).toBe('bad_parameter');
        const sessions = await signed
          .searchSessionEvents({ ...everything, limit: 1, startKey: bad })
          .catch((e: unknown) => e);
        expect(sessions, bad).toBeInstanceOf(InvalidStartKeyError);
      }
      expect((await signed.search({ ...everything, limit: 1, startKey })).events).toHaveLength(1);
    });
  });

  describe('query plans', () => {
    it('reads searches from an index in order, without sorting', async () => {
      await emitAll(
        Array.from({ length: 200 }, (_, i) => ({
          event: i % 2 ? 'a' : 'b',
          code: 'C',
          time: at(i),
          user: `u${i % 5}`,
        })),
      );
      const first = await store.search({ ...everything, limit: 10 });
      const cases: [AuditSearchQuery, string][] = [
        [{ ...everything, limit: 10 }, 'audit_events_time'],
        [{ ...everything, limit: 10, startKey: first.startKey }, 'audit_events_time'],
        [{ ...everything, limit: 10, order: 'asc', startKey: first.startKey }, 'audit_events_time'],
        [{ ...everything, limit: 10, eventTypes: ['a'] }, 'audit_events_type_time'],
        [
          { ...everything, limit: 10, eventTypes: ['a'], startKey: first.startKey },
          'audit_events_type_time',
        ],
      ];
      for (const [query, index] of cases) {
        const plan = await subject.explainSearch(query);
        expect(plan.indexes, plan.text).toContain(index);
        expect(plan.sorts, plan.text).toBe(false);
      }
    });
  });
}
