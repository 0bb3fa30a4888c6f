import { randomBytes, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  AuditSearchResult,
  ReplayableAuditStore,
} from './audit.types.js';
import { AuditBadParameterError, InvalidStartKeyError } from './audit.types.js';
import type { AuditChainSource } from './audit-chain.js';
import { verifyAuditChain } from './audit-chain.js';
import { applyAuditRetention } from './retention.js';
import { SignedCursorAuditStore } from './signed-cursor.js';

/**
 * The tests that seed thousands of events and search them against the scan: 5 to 20 s on two cores
 * busy with a whole run (PostgreSQL's trigram index most), past the default 20 s once in a while.
 */
const seedingTestMs = 60_000;

/** What the query planner does with one search. */
export interface SearchPlan {
  /** The raw plan, shown when an assertion fails. */
  text: string;
  /** Names of the indexes the plan reads. */
  indexes: string[];
  /** Whether rows are sorted after reading (instead of coming out of an index in order). */
  sorts: boolean;
}

export interface AuditStoreUnderTest {
  store: ReplayableAuditStore & AuditChainSource;
  /** Another store over the same storage: a second proxy. */
  openSecond(): Promise<ReplayableAuditStore & AuditChainSource>;
  /** Tampering by direct SQL: replaces text in the stored JSON of the event with this uid. */
  alterEvent(uid: string, text: string, replacement: string): Promise<void>;
  /** Tampering by direct SQL: deletes the row of the event with this uid. */
  deleteEvent(uid: string): Promise<void>;
  explainSearch(q: AuditSearchQuery): Promise<SearchPlan>;
  /** The same search by the plain scan alone: what text search did before it had an index. */
  searchByScan(q: AuditSearchQuery): Promise<AuditSearchResult>;
  /** The same search by the text index, as far as the store can be made to use it alone. */
  searchByIndex(q: AuditSearchQuery): Promise<AuditSearchResult>;
  /** Closes the store and removes its storage. */
  cleanup(): Promise<void>;
}

export type AuditStoreFactory = (clusterName: string) => Promise<AuditStoreUnderTest>;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const base = Date.parse('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(base + ms);
const everything = { from: at(-1e9), to: at(1e9) };

/** The behaviour both audit stores share; each store's test file calls this once. */
export function runAuditStoreConformance(name: string, factory: AuditStoreFactory): void {
  describe(`${name} audit store`, () => {
    let subject: AuditStoreUnderTest;
    let store: ReplayableAuditStore & AuditChainSource;

    beforeEach(async () => {
      subject = await factory('test-cluster');
      store = subject.store;
    });
    afterEach(() => subject.cleanup());

    /** Emits with bounded parallelism: fast on PostgreSQL, still sequential-ish on SQLite. */
    const emitAll = async (inputs: AuditEventInput[]): Promise<AuditEvent[]> => {
      const out: AuditEvent[] = [];
      for (let i = 0; i < inputs.length; i += 50)
        out.push(...(await Promise.all(inputs.slice(i, i + 50).map((e) => store.emit(e)))));
      return out;
    };
    const times = (events: AuditEvent[]) => events.map((event) => Date.parse(event.time) - base);

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

    describe('text search', () => {
      it('matches the event JSON ignoring case, with % and _ taken literally, across pages', async () => {
        await emitAll([
          { event: 'exec', code: 'T3002I', user: 'Alice', time: at(1), command: 'rm -rf /tmp/x' },
          { event: 'exec', code: 'T3002I', user: 'bob', time: at(2), command: 'ls' },
          { event: 'exec', code: 'T3002I', user: 'carol', time: at(3), note: '100% sure' },
          { event: 'user.login', code: 'T1000I', user: 'ALICE', time: at(4) },
          { event: 'exec', code: 'T3002I', user: 'dave', time: at(5), note: '100 percent' },
        ]);
        const found = async (search: string, more: Partial<AuditSearchQuery> = {}) =>
          times((await store.search({ ...everything, limit: 10, search, ...more })).events);
        expect(await found('alice')).toEqual([4, 1]);
        expect(await found('RM -RF')).toEqual([1]);
        expect(await found('100%')).toEqual([3]);
        expect(await found('c_mmand')).toEqual([]);
        expect(await found('alice', { eventTypes: ['exec'] })).toEqual([1]);
        const first = await store.search({ ...everything, limit: 1, search: 'alice' });
        const rest = await store.search({
          ...everything,
          limit: 1,
          search: 'alice',
          startKey: first.startKey,
        });
        expect([...times(first.events), ...times(rest.events)]).toEqual([4, 1]);
        expect(rest.startKey).toBe('');
      });
    });

    describe('text search with the index', () => {
      // Texts with case, LIKE wildcards, a backslash and a quote (both escaped in the JSON),
      // and letters outside ASCII; each event carries a user and a note from these lists.
      const users = ['Alice', 'bob', 'BOB', 'Émile', 'émile', 'ÅSA', 'carol'];
      const notes = [
        // Holds every trigram of 'tic-tac-toe', but not the text.
        'tic-tac tac-toe',
        '100% sure',
        '100 percent',
        'a_b',
        'axb',
        'back\\slash',
        'say "hi"',
        'rm -rf /tmp/x',
        '🔑 key',
        'Ångström',
        'ab',
      ];
      const types = ['exec', 'user.login', 'session.start', 'session.end'];
      /** 2,400 events over 300 milliseconds, eight per millisecond, written out of time order. */
      const seed = () =>
        emitAll(
          Array.from({ length: 2400 }, (_, i) => ({
            event: types[i % types.length]!,
            code: 'C',
            time: at((((i * 7919) % 2400) / 8) | 0),
            user: users[i % users.length]!,
            // Every thirteenth event has a note of its own instead.
            note: i % 13 === 12 ? `n${i}` : notes[i % notes.length]!,
          })),
        );

      /** Every page of a search, read with each page's startKey. */
      const allPages = async (
        search: (q: AuditSearchQuery) => Promise<AuditSearchResult>,
        query: AuditSearchQuery,
      ) => {
        const pages: AuditSearchResult[] = [];
        let startKey = '';
        do {
          const page = await search({ ...query, startKey });
          pages.push(page);
          startKey = page.startKey;
        } while (startKey && pages.length < 200);
        return pages;
      };

      const searches = [
        // One and two characters: too short for trigrams, the scan serves them.
        'a',
        'É',
        '%',
        '_',
        '\\',
        'ob',
        '0%',
        'a_',
        '🔑',
        // Three and more.
        'bob',
        'BoB',
        '  rm -RF  ',
        '100%',
        '100%_',
        '% s',
        'a_b',
        'x_b',
        'k\\\\s',
        'say \\"hi',
        '"hi',
        'say "hi',
        'émile',
        'ÉMILE',
        'ångström',
        '🔑 k',
        '"user":"bob"',
        '"n1234"',
        'tic-tac-toe',
        'nothing like it',
      ];

      it(
        'finds exactly the events the scan finds, in the same order and pages',
        async () => {
          const emitted = await seed();
          const queries: [string, Omit<AuditSearchQuery, 'search'>][] = [
            ['everything, one page', { ...everything, limit: 5000 }],
            ['oldest first, pages of 250', { ...everything, limit: 250, order: 'asc' }],
            [
              'a time range and two types, pages of 60',
              { from: at(50), to: at(200), eventTypes: ['exec', 'session.end'], limit: 60 },
            ],
            ['one type, oldest first', { ...everything, eventTypes: ['user.login'], limit: 5000 }],
          ];
          let matched = 0;
          for (const search of searches) {
            for (const [label, query] of queries) {
              const q = { ...query, search };
              const scan = await allPages((x) => subject.searchByScan(x), q);
              const context = `${JSON.stringify(search)}, ${label}`;
              expect(await allPages((x) => store.search(x), q), context).toEqual(scan);
              expect(await allPages((x) => subject.searchByIndex(x), q), context).toEqual(scan);
              matched += scan.flatMap((page) => page.events).length;
            }
            // Where the text is ASCII, what matches is certain: the JSON holds it, ignoring ASCII case.
            if (/^[\x20-\x7e]*$/.test(search)) {
              const fold = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
              const wanted = fold(search.trim());
              const expected = emitted.filter((event) =>
                fold(JSON.stringify(event)).includes(wanted),
              );
              const { events } = await store.search({ ...everything, limit: 5000, search });
              expect(events.map((event) => event.uid).sort(), search).toEqual(
                expected.map((event) => event.uid).sort(),
              );
            }
          }
          // The searches above must have found something to compare.
          expect(matched).toBeGreaterThan(10_000);
        },
        seedingTestMs,
      );

      it(
        'finds the literal text: wildcards, the escaped quote and backslash, case',
        async () => {
          const emitted = await seed();
          const count = async (search: string) =>
            (await store.search({ ...everything, limit: 5000, search })).events.length;
          const withNote = (note: string) => emitted.filter((event) => event.note === note).length;
          const bobs = emitted.filter((event) => event.user?.toLowerCase() === 'bob').length;
          expect(withNote('100% sure')).toBeGreaterThan(200);
          expect(await count('100%')).toBe(withNote('100% sure'));
          expect(await count('100%_')).toBe(0);
          expect(await count('a_b')).toBe(withNote('a_b'));
          expect(await count('x_b')).toBe(0);
          expect(await count('say \\"hi')).toBe(withNote('say "hi"'));
          expect(await count('say "hi')).toBe(0);
          expect(await count('k\\\\s')).toBe(withNote('back\\slash'));
          expect(await count('🔑 KEY')).toBe(withNote('🔑 key'));
          expect(await count('"n1234"')).toBe(1);
          expect(withNote('tic-tac tac-toe')).toBeGreaterThan(200);
          expect(await count('tic-tac-toe')).toBe(0);
          expect(await count('BOB')).toBe(bobs);
          expect(await count('"user":"Bob"')).toBe(bobs);
        },
        seedingTestMs,
      );

      it('no longer finds events removed by retention', async () => {
        for (let n = 0; n < 30; n += 1)
          await store.emit({ event: 'e', code: 'C', time: at(n), note: `kept-or-gone ${n}.` });
        expect(await store.removeOlderThan(at(20), 100)).toBe(20);
        for (const search of ['kept-or-gone', 'kept-or-gone 3.', 'kept-or-gone 25.']) {
          const q = { ...everything, limit: 100, search, order: 'asc' as const };
          const expected = (await subject.searchByScan(q)).events;
          expect((await store.search(q)).events, search).toEqual(expected);
          expect((await subject.searchByIndex(q)).events, search).toEqual(expected);
        }
        const left = await store.search({ ...everything, limit: 100, search: 'kept-or-gone' });
        expect(times(left.events)).toEqual([29, 28, 27, 26, 25, 24, 23, 22, 21, 20]);
        expect(
          (await store.search({ ...everything, limit: 10, search: 'gone 3.' })).events,
        ).toEqual([]);
      });
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

    describe('searchSessionEvents', () => {
      it('returns only session end events, terminal and desktop', async () => {
        const types = [
          'session.start',
          'session.end',
          'windows.desktop.session.start',
          'windows.desktop.session.end',
          'session.join',
          'user.login',
        ];
        await emitAll(types.map((event, i) => ({ event, code: 'C', time: at(i), sid: `s${i}` })));
        const { events, startKey } = await store.searchSessionEvents({
          ...everything,
          limit: 10,
          order: 'asc',
        });
        expect(events.map((event) => event.event)).toEqual([
          'session.end',
          'windows.desktop.session.end',
        ]);
        expect(startKey).toBe('');
      });

      // The Session Recordings page searches on the server; its rows show the host (or the
      // Kubernetes cluster, or the desktop), the participants and the session id.
      it('finds by the text a recording row shows, among session end events only', async () => {
        await emitAll([
          {
            event: 'session.end',
            code: 'T2004I',
            time: at(1),
            sid: 'sid-ssh-1',
            participants: ['alice', 'bob'],
            server_hostname: 'web-01',
          },
          {
            event: 'session.end',
            code: 'T2004I',
            time: at(2),
            sid: 'sid-kube-2',
            participants: ['carol'],
            proto: 'kube',
            kubernetes_cluster: 'Prod-Kube',
          },
          {
            event: 'windows.desktop.session.end',
            code: 'TDP01I',
            time: at(3),
            session_id: 'sid-desk-3',
            user: 'dave',
            desktop_name: 'win-desk',
          },
          // Same host and user, but not an end event: never a recording.
          {
            event: 'session.start',
            code: 'T2000I',
            time: at(4),
            user: 'bob',
            server_hostname: 'web-01',
          },
        ]);
        const found = async (search: string) =>
          times((await store.searchSessionEvents({ ...everything, limit: 10, search })).events);
        expect(await found('WEB-01')).toEqual([1]);
        expect(await found('bob')).toEqual([1]);
        expect(await found('sid-kube')).toEqual([2]);
        expect(await found('prod-kube')).toEqual([2]);
        expect(await found('win-desk')).toEqual([3]);
        expect(await found('sid-desk-3')).toEqual([3]);
        expect(await found('nobody')).toEqual([]);
        const first = await store.searchSessionEvents({ ...everything, limit: 1, search: 'sid-' });
        expect(times(first.events)).toEqual([3]);
        const rest = await store.searchSessionEvents({
          ...everything,
          limit: 10,
          search: 'sid-',
          startKey: first.startKey,
        });
        expect(times(rest.events)).toEqual([2, 1]);
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
          [
            { ...everything, limit: 10, order: 'asc', startKey: first.startKey },
            'audit_events_time',
          ],
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
  });
}
