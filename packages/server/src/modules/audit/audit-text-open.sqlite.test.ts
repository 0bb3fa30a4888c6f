import { describe, expect, it } from 'vitest';
import { SqliteAuditStore } from './audit.sqlite.js';
import {
  MIDDLE_SHAPE,
  T0,
  TEXT_INDEX_OBJECTS,
  direct,
  expectSameAsScan,
  insertRows,
  strategies,
  withFile,
} from './audit-text.sqlite.testkit.js';

/** The FTS5 index of the release before this one, as its audit-text.sqlite.ts made it. */
const FTS5_INDEX = `
  CREATE VIRTUAL TABLE audit_events_text USING fts5(
    data, content='', detail=none, tokenize='trigram'
  );
  CREATE TABLE audit_time_blocks (
    block INTEGER PRIMARY KEY, min_time INTEGER NOT NULL, max_time INTEGER NOT NULL
  );
  CREATE TRIGGER audit_events_text_insert AFTER INSERT ON audit_events BEGIN
    INSERT INTO audit_events_text (rowid, data) VALUES (new.id, new.data);
    INSERT INTO audit_time_blocks (block, min_time, max_time)
      VALUES (new.id >> 12, new.time_ms, new.time_ms)
      ON CONFLICT (block) DO UPDATE SET
        min_time = min(min_time, excluded.min_time), max_time = max(max_time, excluded.max_time);
  END;
  CREATE TRIGGER audit_events_text_delete AFTER DELETE ON audit_events BEGIN
    INSERT INTO audit_events_text (audit_events_text, rowid, data) VALUES ('delete', old.id, old.data);
  END;
  CREATE TRIGGER audit_events_text_update AFTER UPDATE OF id, time_ms, data ON audit_events BEGIN
    INSERT INTO audit_events_text (audit_events_text, rowid, data) VALUES ('delete', old.id, old.data);
    INSERT INTO audit_events_text (rowid, data) VALUES (new.id, new.data);
  END;`;

const hosts = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    timeMs: T0 + i,
    type: 'e',
    fields: { host: `Host-${i % 40}` },
  }));
const all = { from: new Date(T0), to: new Date(T0 + 10_000) };
const names = (file: string) =>
  direct(file, (db) =>
    db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'audit_%' ORDER BY 1").pluck().all(),
  );

describe('sqlite text index, opening logs of earlier releases', () => {
  it('indexes a log made before any text index, once, at open', async () => {
    await withFile(async (file) => {
      new SqliteAuditStore(file, 'c').close();
      direct(file, (db) => db.exec(TEXT_INDEX_OBJECTS));
      insertRows(file, hosts(5000));
      new SqliteAuditStore(file, 'c', { textIndexShape: MIDDLE_SHAPE }).close();
      // The complete segment (ids 0 to 4,095) is in the file; the rest is indexed in memory.
      direct(file, (db) => {
        expect(db.prepare('SELECT sealed_below FROM audit_text_index').pluck().get()).toBe(1);
        expect(db.prepare('SELECT block FROM audit_time_blocks').pluck().all()).toEqual([
          0, 1, 2, 3,
        ]);
        expect(db.prepare('SELECT DISTINCT segment FROM audit_text_slices').pluck().all()).toEqual([
          0,
        ]);
      });
      const stores = strategies(file);
      try {
        const { events } = await stores[1]!.search({
          ...all,
          limit: 5000,
          search: 'host-17"',
          order: 'asc',
        });
        expect(events.map((event) => event.uid)).toEqual(
          Array.from({ length: 125 }, (_, n) => `u${17 + 40 * n}`),
        );
        for (const search of ['host-1', 'HOST-39"', '"u4999"', '"u40', 'nothing'])
          await expectSameAsScan(stores, { ...all, limit: 700, search });
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
      // Opened again, nothing is indexed twice.
      const before = direct(file, (db) =>
        db.prepare('SELECT count(*) FROM audit_text_slices').pluck().get(),
      );
      new SqliteAuditStore(file, 'c').close();
      expect(
        direct(file, (db) => db.prepare('SELECT count(*) FROM audit_text_slices').pluck().get()),
      ).toBe(before);
    });
  });

  it('replaces the FTS5 index of the release before, in the transaction that opens it', async () => {
    await withFile(async (file) => {
      new SqliteAuditStore(file, 'c').close();
      direct(file, (db) => db.exec(TEXT_INDEX_OBJECTS + FTS5_INDEX));
      insertRows(file, hosts(9000));
      expect(names(file)).toContain('audit_events_text_insert');
      const store = new SqliteAuditStore(file, 'c', { textIndexShape: MIDDLE_SHAPE });
      await store.close();
      // No trace of FTS5 (its shadow tables go with it), the new index in place.
      expect(names(file)).toEqual([
        'audit_chain',
        'audit_events',
        'audit_events_sid_time',
        'audit_events_text_changed',
        'audit_events_time',
        'audit_events_type_time',
        'audit_events_user_time',
        'audit_text_changed',
        'audit_text_index',
        'audit_text_slices',
        'audit_time_blocks',
      ]);
      const stores = strategies(file);
      try {
        await stores[0]!.emitBatch(
          Array.from({ length: 300 }, (_, n) => ({
            event: 'e',
            code: 'C',
            time: new Date(T0 + 9000 + n),
            host: `after-${n}`,
          })),
        );
        for (const search of ['host-17"', 'HOST-3', '"after-29"', 'after-2', 'nothing'])
          await expectSameAsScan(stores, { ...all, limit: 700, search });
      } finally {
        await Promise.all(stores.map((store) => store.close()));
      }
    });
  });

  it('keeps the shape a log was made with, whatever a later store asks for', async () => {
    await withFile(async (file) => {
      new SqliteAuditStore(file, 'c', { textIndexShape: MIDDLE_SHAPE }).close();
      const later = new SqliteAuditStore(file, 'c');
      await later.emitBatch(
        Array.from({ length: 5000 }, (_, n) => ({ event: 'e', code: 'C', n, time: new Date(T0) })),
      );
      await later.close();
      direct(file, (db) =>
        expect(
          db.prepare('SELECT segment_shift, sealed_below FROM audit_text_index').get(),
        ).toEqual({
          segment_shift: 12,
          sealed_below: 1,
        }),
      );
    });
  });
});
