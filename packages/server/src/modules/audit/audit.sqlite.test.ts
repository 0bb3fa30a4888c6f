import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from './audit-chain.js';
import { runAuditStoreConformance } from './audit.conformance.testkit.js';
import { SqliteAuditStore } from './audit.sqlite.js';
import { SMALL_SHAPE } from './audit-text.sqlite.testkit.js';
import { sqliteStoreUnderTest } from './audit.sqlite.testkit.js';

runAuditStoreConformance('sqlite', (clusterName) =>
  sqliteStoreUnderTest(
    clusterName,
    (file, name) => new SqliteAuditStore(file, name, { textIndexShape: SMALL_SHAPE }),
  ),
);

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
