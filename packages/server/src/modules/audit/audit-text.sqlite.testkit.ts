import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'vitest';
import { SqliteAuditStore } from './audit.sqlite.js';
import type { IndexShape } from './audit-text-segment.js';
import type { AuditSearchQuery, AuditSearchResult } from './audit.types.js';

/** Helpers of the SQLite text index's tests. */

/**
 * A text index of small segments (512 ids, columns of 4), so that a few thousand events fill
 * several: searches read written segments and open ones, and writes complete them.
 */
export const SMALL_SHAPE: IndexShape = {
  segmentShift: 9,
  columnShift: 2,
  timeShift: 7,
  bucketBits: 10,
};

/** Segments of 4,096 ids, columns of 16 and time blocks of 1,024. */
export const MIDDLE_SHAPE: IndexShape = {
  segmentShift: 12,
  columnShift: 4,
  timeShift: 10,
  bucketBits: 12,
};

/** What the text index adds to a log: dropped, the log is as a release before it made it. */
export const TEXT_INDEX_OBJECTS = `
  DROP TRIGGER audit_events_text_changed;
  DROP TABLE audit_text_index;
  DROP TABLE audit_text_slices;
  DROP TABLE audit_time_blocks;
  DROP TABLE audit_text_changed;`;

export const T0 = Date.parse('2026-01-01T00:00:00.000Z');

export async function withFile(run: (file: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'postern-audit-'));
  try {
    await run(path.join(dir, 'audit.db'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs `work` on the file by plain SQL, as another program would. */
export function direct<T>(file: string, work: (db: Database.Database) => T): T {
  const db = new Database(file);
  try {
    return work(db);
  } finally {
    db.close();
  }
}

/** Rows written by SQL, as fast as the file takes them, with no store knowing. */
export function insertRows(
  file: string,
  rows: { timeMs: number; type: string; fields: object }[],
  firstUid = 0,
): void {
  direct(file, (db) => {
    const insert = db.prepare(
      'INSERT INTO audit_events (time_ms, event_type, code, data) VALUES (?, ?, ?, ?)',
    );
    db.transaction(() => {
      rows.forEach(({ timeMs, type, fields }, i) => {
        const time = new Date(timeMs).toISOString();
        const uid = `u${firstUid + i}`;
        insert.run(
          timeMs,
          type,
          'C',
          JSON.stringify({ event: type, code: 'C', time, uid, ...fields }),
        );
      });
    })();
  });
}

/** A store of each text strategy on the file: auto, index, scan. */
export const strategies = (file: string) =>
  (['auto', 'index', 'scan'] as const).map(
    (textSearch) => new SqliteAuditStore(file, 'c', { textSearch }),
  );

/** The first three pages of a search by each store, which must all be the last one's (scan). */
export async function expectSameAsScan(
  stores: SqliteAuditStore[],
  query: AuditSearchQuery,
): Promise<number> {
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
  const all = await Promise.all(stores.map(pages));
  const scan = all.at(-1)!;
  for (const found of all.slice(0, -1)) expect(found, JSON.stringify(query)).toEqual(scan);
  return scan.flatMap((page) => page.events).length;
}
