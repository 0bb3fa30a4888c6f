import { beforeEach, describe, expect, it } from 'vitest';
import type {
  AuditEventInput,
  AuditSearchQuery,
  AuditSearchResult,
  ReplayableAuditStore,
} from './audit.types.js';
import type { AuditChainSource } from './audit-chain.js';
import { at, everything, seedingTestMs, times } from './audit.conformance.shared.testkit.js';
import type { ConformanceContext } from './audit.conformance.shared.testkit.js';
import type { AuditStoreUnderTest } from './audit.conformance.testkit.js';

/** Text search, by the scan and by the store's text index. */
export function describeTextSearch(ctx: ConformanceContext): void {
  let subject: AuditStoreUnderTest;
  let store: ReplayableAuditStore & AuditChainSource;
  const emitAll = (inputs: AuditEventInput[]) => ctx.emitAll(inputs);
  beforeEach(() => {
    ({ subject, store } = ctx);
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
      expect((await store.search({ ...everything, limit: 10, search: 'gone 3.' })).events).toEqual(
        [],
      );
    });
  });
}
