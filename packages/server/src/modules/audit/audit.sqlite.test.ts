import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from './audit-chain.js';
import { checkQuery } from './audit.common.js';
import { runAuditStoreConformance } from './audit.conformance.testkit.js';
import { SqliteAuditStore, sqliteSearchSql } from './audit.sqlite.js';
import { SMALL_SHAPE } from './audit-text.sqlite.testkit.js';

runAuditStoreConformance('sqlite', async (clusterName) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-audit-'));
  const file = path.join(dir, 'audit.db');
  const store = new SqliteAuditStore(file, clusterName, { textIndexShape: SMALL_SHAPE });
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
