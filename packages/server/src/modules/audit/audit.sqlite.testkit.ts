import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { checkQuery } from './audit.common.js';
import type { AuditStoreUnderTest } from './audit.conformance.testkit.js';
import { SqliteAuditStore, sqliteSearchSql } from './audit.sqlite.js';
import type { AuditChainSource } from './audit-chain.js';
import type { ReplayableAuditStore } from './audit.types.js';

type OpenStore = (file: string, clusterName: string) => ReplayableAuditStore & AuditChainSource;

/**
 * A SQLite audit file in a temp dir for the conformance suite, its store opened by `open` (in
 * this thread, or with a writer thread), and plain stores over the same file for the scan-only
 * and index-only searches and for "a second proxy".
 */
export async function sqliteStoreUnderTest(
  clusterName: string,
  open: OpenStore,
): Promise<AuditStoreUnderTest> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-audit-'));
  const file = path.join(dir, 'audit.db');
  const store = open(file, clusterName);
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
}
