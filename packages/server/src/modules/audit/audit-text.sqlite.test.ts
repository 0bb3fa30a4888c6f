import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { checkQuery } from './audit.common.js';
import { SqliteAuditStore } from './audit.sqlite.js';
import {
  changedRowsSql,
  initialRange,
  textIndexSql,
  textScanSql,
  textScanStopSql,
} from './audit-text-sql.sqlite.js';
import {
  MIDDLE_SHAPE,
  SMALL_SHAPE,
  T0,
  direct,
  expectSameAsScan,
  insertRows,
  strategies,
  withFile,
} from './audit-text.sqlite.testkit.js';
import { applyAuditRetention } from './retention.js';

describe('sqlite text index', () => {
  it(
    'agrees with the scan when ids and times disagree: late, imported and crowded events',
    {
      timeout: 60_000,
    },
    async () => {
      await withFile(async (file) => {
        new SqliteAuditStore(file, 'c', { textIndexShape: MIDDLE_SHAPE }).close();
        // 30,000 rows over 8 segments of ids, written behind the stores' backs (the first store
        // to open indexes the 7 complete ones). In time order, except: every 97th arrives 5,000
        // rows late; 6,000 imported ones are spread over the whole span; the last 4,000 come
        // eight to a millisecond, overlapping the first era's end.
        const timeOf = (i: number) =>
          i < 20_000
            ? i * 10 - (i % 97 === 0 ? 50_000 : 0)
            : i < 26_000
              ? (i * 7919 * 13) % 300_000
              : 190_000 + Math.floor((i - 26_000) / 8);
        insertRows(
          file,
          Array.from({ length: 30_000 }, (_, i) => ({
            timeMs: T0 + timeOf(i),
            type: i % 10 === 0 ? 'rare' : i % 2 ? 'odd' : 'even',
            fields: {
              user: `user${i % 50}`,
              host: `node-${i % 300}`,
              note: `common text${i % 2 ? '' : ' half'} r${i}`,
            },
          })),
        );
        const stores = strategies(file);
        try {
          const ranges = [
            { from: new Date(T0 - 60_000), to: new Date(T0 + 400_000) },
            { from: new Date(T0 + 100_000), to: new Date(T0 + 150_000) },
            { from: new Date(T0), to: new Date(T0 + 5_000) },
          ];
          const searches = [
            'common',
            'HALF',
            'node-7"',
            'node-123"',
            'r25123"',
            'r7"',
            'user4',
            'zzz',
          ];
          let found = 0;
          for (const search of searches)
            for (const range of ranges)
              for (const eventTypes of [undefined, ['rare'], ['rare', 'odd']])
                for (const order of ['desc', 'asc'] as const)
                  for (const limit of [5000, 700])
                    found += await expectSameAsScan(stores, {
                      ...range,
                      search,
                      eventTypes,
                      order,
                      limit,
                    });
          expect(found).toBeGreaterThan(100_000);

          // Retention removes the oldest ids and the segments behind them; the rest still agree.
          const store = stores[0]!;
          expect(await applyAuditRetention(store, 0, T0 + 60_000, 5000)).toBe(6000);
          for (const search of ['common', 'node-123"', 'r5999"', 'r6000"'])
            for (const order of ['desc', 'asc'] as const)
              await expectSameAsScan(stores, { ...ranges[0]!, search, order, limit: 5000 });
          const gone = await store.search({ ...ranges[0]!, limit: 10, search: 'r5999"' });
          expect(gone.events).toEqual([]);
          // The index let go of the segment and the time blocks wholly removed (a search skips
          // their rows anyway, having none to read, but they would take space for ever).
          direct(file, (db) => {
            const first = (sql: string) => db.prepare(sql).pluck().get();
            expect(first('SELECT min(segment) FROM audit_text_slices')).toBe(1);
            expect(first('SELECT min(block) FROM audit_time_blocks')).toBe(5);
          });
        } finally {
          await Promise.all(stores.map((store) => store.close()));
        }
      });
    },
  );

  it('finds what LIKE finds: texts across JSON syntax, key names, short, non-ASCII, odd case', async () => {
    await withFile(async (file) => {
      const first = new SqliteAuditStore(file, 'c', { textIndexShape: SMALL_SHAPE });
      const dbUsers = ['postgres', 'Émile', 'émile', 'ÅSA', 'x\uFFFDy', '🔑 k'];
      const written = await first.emitBatch(
        Array.from({ length: 1500 }, (_, n) => ({
          event: 'db.session.query',
          code: 'TDB02I',
          time: new Date(T0 + n),
          user: n % 7 ? 'alice' : 'BOB',
          sid: `node-${n % 40}`,
          db_user: dbUsers[n % dbUsers.length]!,
          db_query: `SELECT abalance FROM pgbench_accounts WHERE aid = ${n};`,
        })),
      );
      await first.close();
      const stores = strategies(file);
      try {
        const searches = [
          ...['node-17"', '"node-17', 'db_user', 'DB_USER":"POSTGRES"', '":"', 'aid = 12;"'],
          ...['a', 'É', 'ob', '"}', 'émile', 'ÉMILE', 'Émile', 'åsa', 'ÅSA', '🔑', '🔑 K'],
          ...['\uFFFD', 'x\uD800y', 'x\uFFFDy', '\uD83D', 'zebra', 'bob"', 'Bob","sid":"node-7"'],
        ];
        const all = { from: new Date(T0), to: new Date(T0 + 1500), limit: 700 };
        for (const search of searches)
          for (const order of ['desc', 'asc'] as const)
            await expectSameAsScan(stores, { ...all, search, order });
        // What matches is certain where the text is ASCII: the JSON holds it, ignoring case.
        const fold = (text: string) => text.replace(/[A-Z]/g, (c) => c.toLowerCase());
        for (const search of ['node-17"', 'DB_USER":"POSTGRES"', 'Bob","sid":"node-7"']) {
          const { events } = await stores[1]!.search({ ...all, limit: 5000, search });
          const expected = written.filter((e) => fold(JSON.stringify(e)).includes(fold(search)));
          expect(events.length, search).toBe(expected.length);
          expect(expected.length, search).toBeGreaterThan(0);
        }
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });
  });

  it('plans each round as meant: candidate columns drive the lookups, the scan reads in order', async () => {
    await withFile(async (file) => {
      new SqliteAuditStore(file, 'c').close();
      insertRows(
        file,
        Array.from({ length: 500 }, (_, i) => ({ timeMs: T0 + i, type: `t${i % 5}`, fields: {} })),
      );
      const db = new Database(file, { readonly: true });
      const plan = (sql: string, params: unknown[]) =>
        (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[])
          .map((row) => row.detail)
          .join('\n');
      try {
        const range = initialRange(
          checkQuery({ from: new Date(T0), to: new Date(T0 + 500), limit: 10, search: 'abc' }),
        );
        // Each candidate column is read as a range of ids, whatever else narrows the search.
        for (const types of [[], ['t1'], ['t1', 't2']]) {
          const { sql, params } = textIndexSql(range, types, 'desc');
          const lookup = plan(sql, ['[16, 48]', 15, ...params, '%abc%', 11]);
          expect(lookup).toMatch(/^SCAN c VIRTUAL TABLE/);
          expect(lookup).toMatch(/SEARCH e USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
          const changed = changedRowsSql(range, types, 'asc');
          expect(plan(changed.sql, [...changed.params, '%abc%', 11])).toMatch(
            /^SCAN c\n.*SEARCH e USING INTEGER PRIMARY KEY \(rowid=\?\)/,
          );
        }
        for (const order of ['desc', 'asc'] as const) {
          const stop = (types: string[]) => {
            const { sql, params } = textScanStopSql(range, types, order);
            return plan(sql, [...params, 999]);
          };
          expect(stop([])).toMatch(/^SEARCH audit_events USING COVERING INDEX audit_events_time/);
          expect(stop(['t1'])).toMatch(
            /^SEARCH audit_events USING COVERING INDEX audit_events_type_time/,
          );
          // Several types: counted and scanned along the time index, never sorted.
          expect(stop(['t1', 't2'])).toMatch(
            /^SEARCH audit_events USING COVERING INDEX audit_events_time/,
          );
          for (const types of [[], ['t1', 't2']]) {
            const { sql, params } = textScanSql(range, types, order);
            const scan = plan(sql, [...params, '%abc%', 11]);
            expect(scan).toMatch(/USING INDEX audit_events_time/);
            expect(scan).not.toMatch(/TEMP B-TREE/);
          }
          const { sql, params } = textScanSql(range, ['t1'], order);
          expect(plan(sql, [...params, '%abc%', 11])).toMatch(/USING INDEX audit_events_type_time/);
        }
      } finally {
        db.close();
      }
    });
  });
});
