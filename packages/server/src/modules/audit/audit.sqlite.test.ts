import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { checkQuery } from './audit.common.js';
import { runAuditStoreConformance } from './audit.conformance.testkit.js';
import { SqliteAuditStore, sqliteSearchSql } from './audit.sqlite.js';

runAuditStoreConformance('sqlite', async (clusterName) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-audit-'));
  const file = path.join(dir, 'audit.db');
  const store = new SqliteAuditStore(file, clusterName);
  return {
    store,
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
    async cleanup() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
