import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from './audit-chain.js';
import { checkQuery } from './audit.common.js';
import { runAuditStoreConformance } from './audit.conformance.testkit.js';
import { SqliteAuditStore, sqliteSearchSql } from './audit.sqlite.js';
import {
  initialRange,
  textIndexSql,
  textScanSql,
  textScanStopSql,
} from './audit-text-sql.sqlite.js';
import type { AuditSearchQuery, AuditSearchResult } from './audit.types.js';
import { applyAuditRetention } from './retention.js';

runAuditStoreConformance('sqlite', async (clusterName) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-audit-'));
  const file = path.join(dir, 'audit.db');
  const store = new SqliteAuditStore(file, clusterName);
  // The same file read one way only, as a second store would (the first one made the schema).
  const byScan = new SqliteAuditStore(file, clusterName, { textSearch: 'scan' });
  const byIndex = new SqliteAuditStore(file, clusterName, { textSearch: 'index' });
  const direct = (run: (db: Database.Database) => void) => {
    const db = new Database(file);
    try {
      run(db);
    } finally {
      db.close();
    }
  };
  return {
    store,
    async openSecond() {
      return new SqliteAuditStore(file, clusterName);
    },
    async alterEvent(uid, text, replacement) {
      direct((db) =>
        db
          .prepare('UPDATE audit_events SET data = replace(data, ?, ?) WHERE data LIKE ?')
          .run(text, replacement, `%${uid}%`),
      );
    },
    async deleteEvent(uid) {
      direct((db) => db.prepare('DELETE FROM audit_events WHERE data LIKE ?').run(`%${uid}%`));
    },
    async explainSearch(query) {
      const { sql, params } = sqliteSearchSql(checkQuery(query));
      const db = new Database(file, { readonly: true });
      try {
        const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
        const text = rows.map((row) => row.detail).join('\n');
        return {
          text,
          indexes: [...text.matchAll(/USING (?:COVERING )?INDEX (\w+)/g)].map(
            (match) => match[1] as string,
          ),
          sorts: /TEMP B-TREE/.test(text),
        };
      } finally {
        db.close();
      }
    },
    searchByScan: (query) => byScan.search(query),
    searchByIndex: (query) => byIndex.search(query),
    async cleanup() {
      await Promise.all([store.close(), byScan.close(), byIndex.close()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describe('sqlite audit store made before the hash chain', () => {
  it('adds the chain columns; old rows are reported as unchained, new ones verify', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'postern-audit-'));
    const file = path.join(dir, 'audit.db');
    try {
      const old = new Database(file);
      old.exec(`CREATE TABLE audit_events (id INTEGER PRIMARY KEY AUTOINCREMENT, time_ms INTEGER NOT NULL,
        event_type TEXT NOT NULL, code TEXT NOT NULL, user_name TEXT, session_id TEXT, data TEXT NOT NULL)`);
      const insert = old.prepare(
        'INSERT INTO audit_events (time_ms, event_type, code, data) VALUES (?, ?, ?, ?)',
      );
      for (const n of [1, 2]) {
        const time = new Date(Date.UTC(2026, 0, n)).toISOString();
        insert.run(
          Date.parse(time),
          'e',
          'C',
          JSON.stringify({ event: 'e', code: 'C', time, uid: `old-${n}` }),
        );
      }
      old.close();
      const store = new SqliteAuditStore(file, 'c');
      try {
        const first = await store.emit({ event: 'e', code: 'C' });
        await store.emit({ event: 'e', code: 'C' });
        expect(await verifyAuditChain(store)).toEqual({
          verified: 2,
          unchained: 2,
          unchainedBefore: first.time,
        });
        // The old rows keep no protection, but a chained row made to look old does not pass.
        const db = new Database(file);
        db.prepare('UPDATE audit_events SET hash = NULL WHERE data LIKE ?').run(`%${first.uid}%`);
        db.close();
        expect((await verifyAuditChain(store)).problem).toMatchObject({
          uid: first.uid,
          reason: 'its chain hash was removed',
        });
      } finally {
        await store.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite text index', () => {
  const T0 = Date.parse('2026-01-01T00:00:00.000Z');
  const withFile = async (run: (file: string) => Promise<void>) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'postern-audit-'));
    try {
      await run(path.join(dir, 'audit.db'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
  /** Rows written by SQL, as fast as the file takes them; triggers keep the index either way. */
  const insertRows = (file: string, rows: { timeMs: number; type: string; fields: object }[]) => {
    const db = new Database(file);
    try {
      const insert = db.prepare(
        'INSERT INTO audit_events (time_ms, event_type, code, data) VALUES (?, ?, ?, ?)',
      );
      db.transaction(() => {
        rows.forEach(({ timeMs, type, fields }, i) => {
          const time = new Date(timeMs).toISOString();
          const data = JSON.stringify({ event: type, code: 'C', time, uid: `u${i}`, ...fields });
          insert.run(timeMs, type, 'C', data);
        });
      })();
    } finally {
      db.close();
    }
  };
  const strategies = (file: string) =>
    (['auto', 'index', 'scan'] as const).map(
      (textSearch) => new SqliteAuditStore(file, 'c', { textSearch }),
    );
  /** The first three pages of a search by each store, which must all be the scan's. */
  const expectSameAsScan = async (stores: SqliteAuditStore[], query: AuditSearchQuery) => {
    const pages = async (store: SqliteAuditStore) => {
      const out: AuditSearchResult[] = [];
      let startKey = '';
      do {
        const page = await store.search({ ...query, startKey });
        out.push(page);
        startKey = page.startKey;
      } while (startKey && out.length < 3);
      return out;
    };
    const [auto, index, scan] = await Promise.all(stores.map(pages));
    expect(auto, JSON.stringify(query)).toEqual(scan);
    expect(index, JSON.stringify(query)).toEqual(scan);
    return scan!.flatMap((page) => page.events).length;
  };

  it(
    'agrees with the scan when ids and times disagree: late, imported and crowded events',
    {
      timeout: 60_000,
    },
    async () => {
      await withFile(async (file) => {
        new SqliteAuditStore(file, 'c').close();
        // 30,000 rows over about 8 blocks of ids. In time order, except: every 97th arrives 5,000
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

          // Retention removes the oldest ids and the blocks behind them; the rest still agree.
          const store = stores[0]!;
          expect(await applyAuditRetention(store, 0, T0 + 60_000, 5000)).toBe(6000);
          for (const search of ['common', 'node-123"', 'r5999"', 'r6000"'])
            for (const order of ['desc', 'asc'] as const)
              await expectSameAsScan(stores, { ...ranges[0]!, search, order, limit: 5000 });
          const gone = await store.search({ ...ranges[0]!, limit: 10, search: 'r5999"' });
          expect(gone.events).toEqual([]);
          // The index let go of the removed rows too (a search skips them anyway, as they have
          // no row to join, but they would take space for ever), and of the first block.
          const db = new Database(file, { readonly: true });
          try {
            const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
            expect(count(`SELECT count(*) AS n FROM audit_events_text('"mon"')`)).toBe(24_000);
            expect(count('SELECT min(block) AS n FROM audit_time_blocks')).toBe(1);
          } finally {
            db.close();
          }
        } finally {
          await Promise.all(stores.map((store) => store.close()));
        }
      });
    },
  );

  it('backfills a database made before the index, once, at open', async () => {
    await withFile(async (file) => {
      // The schema of the release before the index: the store's, without the index's objects.
      new SqliteAuditStore(file, 'c').close();
      const db = new Database(file);
      db.exec(`DROP TRIGGER audit_events_text_insert; DROP TRIGGER audit_events_text_delete;
        DROP TRIGGER audit_events_text_update; DROP TABLE audit_events_text; DROP TABLE audit_time_blocks;`);
      db.close();
      insertRows(
        file,
        Array.from({ length: 5000 }, (_, i) => ({
          timeMs: T0 + i,
          type: 'e',
          fields: { host: `Host-${i % 40}` },
        })),
      );
      const stores = strategies(file);
      try {
        const index = stores[1]!;
        const hosts = await index.search({
          from: new Date(T0),
          to: new Date(T0 + 5000),
          limit: 5000,
          search: 'host-17"',
          order: 'asc',
        });
        expect(hosts.events.map((event) => event.uid)).toEqual(
          Array.from({ length: 125 }, (_, n) => `u${17 + 40 * n}`),
        );
        for (const search of ['host-1', 'HOST-39"', '"u4999"', 'nothing'])
          await expectSameAsScan(stores, {
            from: new Date(T0),
            to: new Date(T0 + 5000),
            limit: 700,
            search,
          });
        const blocks = new Database(file, { readonly: true });
        expect(blocks.prepare('SELECT block FROM audit_time_blocks ORDER BY 1').all()).toEqual([
          { block: 0 },
          { block: 1 },
        ]);
        blocks.close();
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
      // Opened again, nothing is added twice: the same rows, each once.
      const again = new SqliteAuditStore(file, 'c', { textSearch: 'index' });
      try {
        const { events } = await again.search({
          from: new Date(T0),
          to: new Date(T0 + 5000),
          limit: 5000,
          search: 'host-17"',
        });
        expect(events).toHaveLength(125);
      } finally {
        await again.close();
      }
    });
  });

  it('plans each round as meant: trigram matches drive the lookups, the scan reads in order', async () => {
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
        for (const types of [[], ['t1'], ['t1', 't2']]) {
          const { sql, params } = textIndexSql(range, types, 'desc');
          const lookup = plan(sql, ['"abc"', 0n, 4095n, ...params, '%abc%', 11]);
          expect(lookup).toMatch(/^SCAN f VIRTUAL TABLE INDEX \d+:M/);
          expect(lookup).toMatch(/SEARCH e USING INTEGER PRIMARY KEY \(rowid=\?\)/);
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
