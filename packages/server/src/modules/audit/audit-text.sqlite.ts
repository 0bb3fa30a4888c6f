import type Database from 'better-sqlite3';

/**
 * The index behind the audit log's text search in SQLite, kept in step with audit_events by
 * triggers, so every writer (emit, retention, a hand-run DELETE) updates it without knowing.
 *
 * - audit_events_text: an FTS5 trigram index over each event's JSON. Contentless: the JSON
 *   lives in audit_events already, and a row is removed by handing FTS5 its old JSON (the
 *   trigger has it). Not contentless_delete, which removes by rowid alone but took 14 s for
 *   the first retention batch of 10,000 after a backfill of 1M (it writes tombstones into every
 *   big segment). detail=none, because searches only ask which rows hold some trigrams (LIKE on
 *   the row decides the rest), and positions would triple the index.
 * - audit_time_blocks: the time span of each run of 2^12 ids. Trigram matches come out in id
 *   order and pages are in time order; this small table says which id ranges a time window can
 *   hold (ids follow time closely, but spooled and imported events arrive late).
 */

export const TEXT_INDEX = 'audit_events_text';
export const TIME_BLOCKS = 'audit_time_blocks';
/** ids per time block, as a shift: block = id >> TIME_BLOCK_SHIFT. */
export const TIME_BLOCK_SHIFT = 12;

// FTS5 writes a small segment per transaction (an emit is one) and merges segments of a level
// when it has `automerge` of them: at the default 4, an emit cost 750 µs of CPU on a log of 1M
// events, at 8 about 200 µs (80 µs without the index), for a few more segments per search.
const TEXT_INDEX_TABLE = `
  CREATE VIRTUAL TABLE ${TEXT_INDEX} USING fts5(
    data, content='', detail=none, tokenize='trigram'
  );
  INSERT INTO ${TEXT_INDEX} (${TEXT_INDEX}, rank) VALUES ('automerge', 8);`;

const TIME_BLOCKS_TABLE = `
  CREATE TABLE ${TIME_BLOCKS} (
    block INTEGER PRIMARY KEY,
    min_time INTEGER NOT NULL,
    max_time INTEGER NOT NULL
  );`;

// A block only ever widens: deleting rows leaves its span a little too wide, which costs a
// search a few wasted lookups but never a missed row. Retention drops whole blocks behind it.
const widenBlock = (row: 'new') => `
  INSERT INTO ${TIME_BLOCKS} (block, min_time, max_time)
    VALUES (${row}.id >> ${TIME_BLOCK_SHIFT}, ${row}.time_ms, ${row}.time_ms)
    ON CONFLICT (block) DO UPDATE SET
      min_time = min(min_time, excluded.min_time), max_time = max(max_time, excluded.max_time);`;

// A contentless index forgets a row by being told the text it indexed for it.
const forget = (row: 'old') =>
  `INSERT INTO ${TEXT_INDEX} (${TEXT_INDEX}, rowid, data) VALUES ('delete', ${row}.id, ${row}.data);`;

const TRIGGERS = `
  CREATE TRIGGER IF NOT EXISTS audit_events_text_insert AFTER INSERT ON audit_events BEGIN
    INSERT INTO ${TEXT_INDEX} (rowid, data) VALUES (new.id, new.data);
    ${widenBlock('new')}
  END;
  CREATE TRIGGER IF NOT EXISTS audit_events_text_delete AFTER DELETE ON audit_events BEGIN
    ${forget('old')}
  END;
  -- The log is append-only, but a row changed by hand must still be found by what it now says.
  CREATE TRIGGER IF NOT EXISTS audit_events_text_update AFTER UPDATE OF id, time_ms, data ON audit_events BEGIN
    ${forget('old')}
    INSERT INTO ${TEXT_INDEX} (rowid, data) VALUES (new.id, new.data);
    ${widenBlock('new')}
  END;`;

/**
 * Creates the index and its triggers; run inside the schema transaction. A database made before
 * the index is backfilled here, once, in that same transaction: all or nothing, and no event
 * written meanwhile can slip between the backfill and the triggers.
 *
 * The backfill tokenizes every event: about 20 s per million events on a shared 2-core machine
 * (the bench, bench/audit-search.mjs, times it), and the index adds about half the file's size
 * again, written to the WAL first. The store is opened synchronously, so the server does not
 * start serving until it is done, and other writers of the file (a CLI command) wait or spool
 * meanwhile. It happens once: later opens find the index.
 */
export function installTextIndex(db: Database.Database): void {
  const exists = (name: string) =>
    db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name) !== undefined;
  if (!exists(TEXT_INDEX)) {
    db.exec(TEXT_INDEX_TABLE);
    db.exec(`INSERT INTO ${TEXT_INDEX} (rowid, data) SELECT id, data FROM audit_events`);
    // Merged into one segment now (a fifth more time), rather than by the first writes: left
    // to them, the first thousand emits after a backfill of 1M took 3 ms each instead of 0.2.
    db.exec(`INSERT INTO ${TEXT_INDEX} (${TEXT_INDEX}) VALUES ('optimize')`);
  }
  if (!exists(TIME_BLOCKS)) {
    db.exec(TIME_BLOCKS_TABLE);
    db.exec(`INSERT INTO ${TIME_BLOCKS} (block, min_time, max_time)
      SELECT id >> ${TIME_BLOCK_SHIFT}, min(time_ms), max(time_ms) FROM audit_events GROUP BY 1`);
  }
  db.exec(TRIGGERS);
}

/** For retention, which removes every id up to one: drops the blocks wholly behind it. */
export function removedBlocksDropper(db: Database.Database): (lastId: number) => void {
  const drop = db.prepare(
    `DELETE FROM ${TIME_BLOCKS} WHERE block < (? + 1) >> ${TIME_BLOCK_SHIFT}`,
  );
  return (lastId) => drop.run(BigInt(lastId));
}
