import type Database from 'better-sqlite3';
import type { IndexShape } from './audit-text-segment.js';
import { DEFAULT_SHAPE, SegmentBits, decodeSlice, isUsableShape } from './audit-text-segment.js';

/**
 * The index behind the audit log's text search in SQLite: for each run of ids (a column, 4 by
 * default), a set of bits saying which trigram buckets its events' JSON holds, built in JS as
 * events are written, and written to the file a segment (16,384 ids) at a time, sliced by
 * bucket so that a search reads only its text's buckets (audit-text-segment.ts). A search ANDs
 * its text's slices, and LIKE reads the columns left (audit-text-search.sqlite.ts).
 *
 * It replaced an FTS5 trigram index kept by triggers, which made a batched write about seven
 * times dearer: FTS5 keeps each trigram's list of rows, about 400 entries an event (fed in bulk,
 * 4,096 rows at a time, it still cost 20 µs an event more than a plain insert). Here an event
 * costs a bit per distinct trigram of its column in memory, and a segment comes to 30 to 80
 * bytes an event in the file.
 *
 * Who keeps it: whichever store writes. A write transaction first reads the rows written since it
 * last looked (another process's), so the segment it completes is complete, and writes the
 * segment in that transaction. Segments still open live in each store's memory only: rebuilt from
 * their rows at the first write or indexed search, read again after a failed write. Rows changed
 * by hand (the log is append-only) are listed in audit_text_changed by a trigger, and searches
 * read them by LIKE alone.
 *
 * Tables: audit_text_index (the shape and which segments are written), audit_text_slices (a
 * segment's bits, per bucket; a missing slice has no bit set), audit_time_blocks (the time span of
 * each time block of written segments) and audit_text_changed.
 */

export const TIME_BLOCKS = 'audit_time_blocks';
export const CHANGED = 'audit_text_changed';
const META = 'audit_text_index';
const SLICES = 'audit_text_slices';
/** The file format: the trigram hash (audit-text-trigrams.ts) and the tables. */
const FORMAT = 1;

const TABLES = `
  CREATE TABLE ${META} (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    format INTEGER NOT NULL,
    segment_shift INTEGER NOT NULL,
    column_shift INTEGER NOT NULL,
    time_shift INTEGER NOT NULL,
    bucket_bits INTEGER NOT NULL,
    sealed_below INTEGER NOT NULL
  );
  CREATE TABLE ${SLICES} (
    segment INTEGER NOT NULL,
    bucket INTEGER NOT NULL,
    bits BLOB NOT NULL,
    PRIMARY KEY (segment, bucket)
  ) WITHOUT ROWID;
  CREATE TABLE ${TIME_BLOCKS} (
    block INTEGER PRIMARY KEY,
    min_time INTEGER NOT NULL,
    max_time INTEGER NOT NULL
  );
  CREATE TABLE ${CHANGED} (id INTEGER PRIMARY KEY);`;

/**
 * The trigger that lists rows changed by hand; exported for the bench, which drops it. There is
 * none for rows inserted by hand with an id below the newest (only possible by naming the id):
 * a trigger on every insert cost 2.3 µs an event, half again what the index costs, for a row
 * `postern verify audit` names as out of the chain anyway.
 */
export const TEXT_INDEX_TRIGGERS = `
  CREATE TRIGGER IF NOT EXISTS audit_events_text_changed
    AFTER UPDATE OF id, time_ms, data ON audit_events BEGIN
    INSERT OR IGNORE INTO ${CHANGED} (id) VALUES (new.id);
  END;`;

// What the FTS5 index of earlier releases left, and this index's own objects, for a rebuild.
const EARLIER = `
  DROP TRIGGER IF EXISTS audit_events_text_insert;
  DROP TRIGGER IF EXISTS audit_events_text_delete;
  DROP TRIGGER IF EXISTS audit_events_text_update;
  DROP TABLE IF EXISTS audit_events_text;
  DROP TRIGGER IF EXISTS audit_events_text_changed;
  DROP TABLE IF EXISTS ${META};
  DROP TABLE IF EXISTS ${SLICES};
  DROP TABLE IF EXISTS ${TIME_BLOCKS};
  DROP TABLE IF EXISTS ${CHANGED};`;

interface MetaRow {
  format: number;
  segment_shift: number;
  column_shift: number;
  time_shift: number;
  bucket_bits: number;
}

/**
 * Creates the index's tables, or finds them; run inside the schema transaction. A log of an
 * earlier release (no index, or the FTS5 one) loses what it had and gets these tables empty: the
 * store then indexes every row in the same transaction (SqliteTextIndex.sealBacklog).
 */
export function installTextIndex(db: Database.Database, shape: IndexShape): IndexShape {
  const exists = db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(META) !== undefined;
  const meta = exists
    ? (db.prepare(`SELECT * FROM ${META}`).get() as MetaRow | undefined)
    : undefined;
  const found = meta && {
    segmentShift: meta.segment_shift,
    columnShift: meta.column_shift,
    timeShift: meta.time_shift,
    bucketBits: meta.bucket_bits,
  };
  if (meta?.format === FORMAT && found && isUsableShape(found)) return found;
  db.exec(EARLIER);
  db.exec(TABLES);
  db.exec(TEXT_INDEX_TRIGGERS);
  db.prepare(`INSERT INTO ${META} VALUES (1, ?, ?, ?, ?, ?, 0)`).run(
    FORMAT,
    shape.segmentShift,
    shape.columnShift,
    shape.timeShift,
    shape.bucketBits,
  );
  return shape;
}

export { DEFAULT_SHAPE };

/** The segments not yet written, as far as this store has read the log. */
interface OpenSegments {
  /** Every segment below this one is in the file. */
  sealedBelow: number;
  /** Every row up to this id, in segments from sealedBelow on, is in `segments`. */
  lastSeen: number;
  segments: Map<number, SegmentBits>;
}

export interface IndexedRow {
  id: number;
  timeMs: number;
  json: string;
}

/** Rows read per statement when catching up: bounded memory on a log of any size. */
const READ_ROWS = 4096;

export class SqliteTextIndex {
  private open: OpenSegments | undefined;
  private readonly sealedBelow: Database.Statement;
  private readonly rowsAfter: Database.Statement;
  private readonly maxId: Database.Statement;
  private readonly putSlice: Database.Statement;
  private readonly putBlock: Database.Statement;
  private readonly setSealed: Database.Statement;
  private readonly slicesOf: Database.Statement;

  constructor(
    db: Database.Database,
    readonly shape: IndexShape,
  ) {
    this.sealedBelow = db.prepare(`SELECT sealed_below FROM ${META}`).pluck();
    // The limit written in, not bound: bound, it made this statement four times slower (5 µs,
    // a fifth of what the index added to a single emit).
    this.rowsAfter = db
      .prepare(
        `SELECT id, time_ms, data FROM audit_events WHERE id > ? ORDER BY id LIMIT ${READ_ROWS}`,
      )
      .raw();
    this.maxId = db.prepare('SELECT max(id) FROM audit_events').pluck();
    this.putSlice = db.prepare(`INSERT OR REPLACE INTO ${SLICES} VALUES (?, ?, ?)`);
    this.putBlock = db.prepare(`INSERT OR REPLACE INTO ${TIME_BLOCKS} VALUES (?, ?, ?)`);
    // Never lowered: another process may have written more segments meanwhile.
    this.setSealed = db.prepare(`UPDATE ${META} SET sealed_below = max(sealed_below, ?)`);
    this.slicesOf = db
      .prepare(
        `SELECT bucket, bits FROM ${SLICES}
          WHERE segment = ? AND bucket IN (SELECT value FROM json_each(?))`,
      )
      .raw();
  }

  private segmentOf(id: number): number {
    return Math.floor(id / 2 ** this.shape.segmentShift);
  }

  /**
   * At open, in the schema transaction: indexes the segments that are complete but not written
   * (all of them for a log of an earlier release; none after a clean run).
   */
  sealBacklog(): void {
    const last = this.maxId.get() as number | null;
    if (last !== null && this.segmentOf(last) > (this.sealedBelow.get() as number))
      this.catchUp(true);
  }

  /**
   * Brings the open segments up to every committed row (in a transaction, so the rows it reads
   * stay put); builds them from the log the first time. In a write transaction (`writing`), it
   * writes the segments it completes as it goes, so a long backlog never sits in memory whole.
   */
  catchUp(writing = false): OpenSegments {
    const sealedBelow = this.sealedBelow.get() as number;
    const firstOpenId = sealedBelow * 2 ** this.shape.segmentShift;
    let open = this.open;
    if (!open) open = { sealedBelow, lastSeen: firstOpenId - 1, segments: new Map() };
    else if (sealedBelow > open.sealedBelow) {
      // Another process wrote segments that were open here.
      for (const segment of open.segments.keys())
        if (segment < sealedBelow) open.segments.delete(segment);
      open.sealedBelow = sealedBelow;
      open.lastSeen = Math.max(open.lastSeen, firstOpenId - 1);
    }
    this.open = open;
    for (;;) {
      const rows = this.rowsAfter.all(open.lastSeen) as [number, number, string][];
      this.add(rows.map(([id, timeMs, json]) => ({ id, timeMs, json })));
      if (writing) this.seal();
      if (rows.length < READ_ROWS) return open;
    }
  }

  /** Adds rows with ids above any seen before, in id order (a write's own rows, after catchUp). */
  add(rows: readonly IndexedRow[]): void {
    const open = this.open;
    if (!open) throw new Error('the text index must catch up first');
    for (const { id, timeMs, json } of rows) {
      const number = this.segmentOf(id);
      let segment = open.segments.get(number);
      if (!segment) {
        segment = new SegmentBits(this.shape, number);
        open.segments.set(number, segment);
      }
      segment.add(id, timeMs, json);
      open.lastSeen = id;
    }
  }

  /**
   * Writes every segment that is complete: one that a later id has been seen after, as ids only
   * grow. Runs in the write transaction that completed them.
   */
  seal(): void {
    const open = this.open;
    if (!open) return;
    const complete = this.segmentOf(open.lastSeen);
    if (complete <= open.sealedBelow) return;
    for (const [number, segment] of open.segments) {
      if (number >= complete) continue;
      for (const { bucket, bits } of segment.slices()) this.putSlice.run(number, bucket, bits);
      for (const block of segment.blocks())
        this.putBlock.run(block.block, block.min_time, block.max_time);
      open.segments.delete(number);
    }
    this.setSealed.run(complete);
    open.sealedBelow = complete;
  }

  /** After a failed write transaction: what the store holds may include rows rolled back. */
  forget(): void {
    this.open = undefined;
  }

  /** A written segment's slices of some buckets (all clear where none is stored). */
  sealedSlices(segment: number, buckets: number[]): Map<number, Uint32Array> {
    const words = 2 ** (this.shape.segmentShift - this.shape.columnShift - 5);
    const rows = this.slicesOf.all(segment, JSON.stringify(buckets)) as [number, Buffer][];
    const out = new Map(rows.map(([bucket, bits]) => [bucket, decodeSlice(bits, words)]));
    for (const bucket of buckets) if (!out.has(bucket)) out.set(bucket, new Uint32Array(words));
    return out;
  }
}

/**
 * For retention, which removes every id up to one: drops the segments and time blocks wholly
 * behind it, and the removed rows' marks of change.
 */
export function removedRowsDropper(
  db: Database.Database,
  shape: IndexShape,
): (lastId: number) => void {
  const statements = [
    db.prepare(`DELETE FROM ${SLICES} WHERE segment < (? + 1) >> ${shape.segmentShift}`),
    db.prepare(`DELETE FROM ${TIME_BLOCKS} WHERE block < (? + 1) >> ${shape.timeShift}`),
    db.prepare(`DELETE FROM ${CHANGED} WHERE id <= ?`),
  ];
  return (lastId) => statements.forEach((statement) => statement.run(BigInt(lastId)));
}
