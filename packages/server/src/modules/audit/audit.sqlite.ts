import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_BUSY_TIMEOUT_MS } from '../../backend/sqlite.js';
import type { AuditRow, CheckedQuery, CheckedStoredQuery } from './audit.common.js';
import {
  SESSION_END_EVENTS,
  checkQuery,
  checkStoredQuery,
  encodeStartKey,
  prepareEvent,
  prepareReplay,
  rangeBounds,
  storedPage,
} from './audit.common.js';
import type { AuditChainSource, ChainRow, ChainState } from './audit-chain.js';
import { CHAIN_GENESIS, chainHash } from './audit-chain.js';
import type { TextSearchRow, TextSearchStrategy } from './audit-text-search.sqlite.js';
import { searchWithTextIndex, usesTextIndex } from './audit-text-search.sqlite.js';
import type { IndexShape } from './audit-text-segment.js';
import type { IndexedRow } from './audit-text.sqlite.js';
import {
  DEFAULT_SHAPE,
  SqliteTextIndex,
  installTextIndex,
  removedRowsDropper,
} from './audit-text.sqlite.js';
import type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  AuditSearchResult,
  AuditStoredQuery,
  ReplayableAuditStore,
} from './audit.types.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS audit_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time_ms INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    code TEXT NOT NULL,
    user_name TEXT,
    session_id TEXT,
    data TEXT NOT NULL,
    prev_hash TEXT,
    hash TEXT
  );
  CREATE INDEX IF NOT EXISTS audit_events_time ON audit_events (time_ms, id);
  CREATE INDEX IF NOT EXISTS audit_events_type_time ON audit_events (event_type, time_ms, id);
  CREATE INDEX IF NOT EXISTS audit_events_user_time ON audit_events (user_name, time_ms, id) WHERE user_name IS NOT NULL;
  CREATE INDEX IF NOT EXISTS audit_events_sid_time ON audit_events (session_id, time_ms, id) WHERE session_id IS NOT NULL;
  CREATE TABLE IF NOT EXISTS audit_chain (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    head TEXT NOT NULL,
    anchor TEXT NOT NULL,
    chained_from INTEGER
  );
  INSERT OR IGNORE INTO audit_chain (id, head, anchor) VALUES (1, '${CHAIN_GENESIS}', '${CHAIN_GENESIS}');
`;

/** Databases made before the hash chain get its columns; their old rows stay unchained. */
function addChainColumns(db: Database.Database): void {
  const columns = db.prepare('PRAGMA table_info(audit_events)').all() as { name: string }[];
  for (const column of ['prev_hash', 'hash']) {
    if (!columns.some((c) => c.name === column))
      db.exec(`ALTER TABLE audit_events ADD COLUMN ${column} TEXT`);
  }
}

/**
 * The stored-order read (readStored): by id, after the cursor's row; without one, from the first
 * row (by id) of those that happened at or after `from`, and then everything stored after it.
 */
export function sqliteStoredSql(q: CheckedStoredQuery): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  if (q.afterId !== undefined) {
    where.push('id > ?');
    params.push(BigInt(q.afterId));
  } else if (q.fromMs !== undefined) {
    where.push('id >= (SELECT min(id) FROM audit_events WHERE time_ms >= ?)');
    params.push(q.fromMs);
  }
  if (q.eventTypes) {
    where.push(`event_type IN (${q.eventTypes.map(() => '?').join(', ')})`);
    params.push(...q.eventTypes);
  }
  const conditions = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  params.push(q.limit);
  return {
    sql: `SELECT id, time_ms, data FROM audit_events ${conditions} ORDER BY id LIMIT ?`,
    params,
  };
}

/**
 * Builds the keyset search: rows strictly after the cursor in the chosen order, one more than
 * the limit so we know whether another page exists. Exported so a test can check its plan.
 */
export function sqliteSearchSql(q: CheckedQuery): {
  sql: string;
  params: (string | number | bigint)[];
} {
  const where: string[] = [];
  const params: (string | number | bigint)[] = [];
  const { lower, upper } = rangeBounds(q);
  const add = (condition: string, ...values: (string | number | bigint)[]) => {
    where.push(condition);
    params.push(...values);
  };
  const cursor = q.after ? [q.after.timeMs, BigInt(q.after.id)] : [];
  if (lower === 'cursor') add('(time_ms, id) > (?, ?)', ...cursor);
  else add('time_ms >= ?', q.fromMs);
  if (upper === 'cursor') add('(time_ms, id) < (?, ?)', ...cursor);
  else add('time_ms < ?', q.toMs);
  if (q.eventTypes)
    add(`event_type IN (${q.eventTypes.map(() => '?').join(', ')})`, ...q.eventTypes);
  // SQLite's LIKE ignores ASCII case. The scan reads the index in order and checks each row's
  // JSON, so a rare text costs a longer walk, but pages stay keyset-bounded. Texts of three
  // characters or more also use the text index (audit-text-search.sqlite.ts).
  if (q.searchPattern) add(`data LIKE ? ESCAPE '\\'`, q.searchPattern);
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  params.push(q.limit + 1);
  const sql = `SELECT id, time_ms, data FROM audit_events WHERE ${where.join(' AND ')}
    ORDER BY time_ms ${dir}, id ${dir} LIMIT ?`;
  return { sql, params };
}

export interface SqliteAuditStoreOptions {
  /**
   * How a text search of three characters or more finds rows: 'auto' (the default) uses the
   * text index and the scan together; 'scan' and 'index' use one alone, so tests and the
   * bench can compare them. The results are the same; only the time differs.
   */
  textSearch?: TextSearchStrategy;
  /** The text index's layout, for a file that has none yet (tests make small segments). */
  textIndexShape?: IndexShape;
  /**
   * false: this store's writes leave the text index alone, as a release without it did (the
   * bench's baseline). Other stores index those rows when they next write or search.
   */
  textIndexWrites?: boolean;
}

/** The audit log in its own SQLite file (WAL, like the state file, so the CLI can read it live). */
export class SqliteAuditStore implements ReplayableAuditStore, AuditChainSource {
  private readonly db: Database.Database;
  private readonly append: (rows: readonly { row: AuditRow; event: AuditEvent }[]) => void;
  private readonly removeBatch: (cutoffMs: number, batchSize: number) => number;
  private readonly textSearch: TextSearchStrategy;
  private readonly textIndex: SqliteTextIndex;
  private readonly textIndexWrites: boolean;
  /** Statements of the text search by their SQL, which varies with the query's shape. */
  private readonly statements = new Map<string, Database.Statement>();

  constructor(
    path: string,
    private readonly clusterName: string,
    options: SqliteAuditStoreOptions = {},
  ) {
    this.textSearch = options.textSearch ?? 'auto';
    this.textIndexWrites = options.textIndexWrites ?? true;
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // A text search reads the few columns the text index finds, scattered over the whole log: a
    // page each. SQLite's default cache (2 MiB) keeps few of them from one search to the next;
    // at 64 MiB a page of 5,000 rare matches in a log of 1M took 37 ms instead of 48.
    this.db.pragma('cache_size = -65536');
    this.textIndex = this.db
      .transaction(() => {
        this.db.exec(SCHEMA);
        addChainColumns(this.db);
        const shape = installTextIndex(this.db, options.textIndexShape ?? DEFAULT_SHAPE);
        const index = new SqliteTextIndex(this.db, shape);
        // A log of an earlier release is indexed here, all or nothing, before anyone writes.
        index.sealBacklog();
        return index;
      })
      .immediate();
    // From here on a lock held elsewhere fails fast instead of stopping the event loop inside
    // SQLite; the spool (spool/) keeps the events that could not be written and retries them.
    this.db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    this.append = this.chainedInsert();
    this.removeBatch = this.prefixRemoval();
  }

  /** The inserts and the chain head move together, in one write transaction. */
  private chainedInsert(): (rows: readonly { row: AuditRow; event: AuditEvent }[]) => void {
    const state = this.db.prepare('SELECT head, chained_from FROM audit_chain WHERE id = 1');
    const insert = this.db.prepare(
      'INSERT INTO audit_events (time_ms, event_type, code, user_name, session_id, data, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const setHead = this.db.prepare(
      'UPDATE audit_chain SET head = ?, chained_from = coalesce(chained_from, ?) WHERE id = 1',
    );
    // A replayed event already stored: found through the time index, at its time.
    const holds = this.db.prepare(
      "SELECT 1 FROM audit_events WHERE time_ms = ? AND json_extract(data, '$.uid') = ? LIMIT 1",
    );
    const index = this.textIndex;
    const run = this.db.transaction((rows: readonly { row: AuditRow; event: AuditEvent }[]) => {
      // Rows another process wrote since this store last looked go into the index first.
      if (this.textIndexWrites) index.catchUp(true);
      let { head } = state.get() as { head: string };
      let firstId: number | bigint | undefined;
      const indexed: IndexedRow[] = [];
      for (const { row, event } of rows) {
        if (row.replayOf !== undefined && holds.get(row.timeMs, row.replayOf)) continue;
        const hash = chainHash(head, event);
        const { lastInsertRowid } = insert.run(
          row.timeMs,
          row.eventType,
          row.code,
          row.user,
          row.sid,
          row.json,
          head,
          hash,
        );
        firstId ??= lastInsertRowid;
        indexed.push({ id: Number(lastInsertRowid), timeMs: row.timeMs, json: row.json });
        head = hash;
      }
      if (firstId !== undefined) setHead.run(head, firstId);
      if (this.textIndexWrites) {
        index.add(indexed);
        index.seal();
      }
    });
    return (rows) => {
      try {
        run.immediate(rows);
      } catch (error) {
        // Rolled back: the open segments in memory may hold rows that are not in the file.
        index.forget();
        throw error;
      }
    };
  }

  /**
   * Retention removes a prefix of the chain (write order), stopping at the first row still
   * inside the window, and keeps the hash of the last removed row as the anchor the next row's
   * prev_hash is checked against.
   */
  private prefixRemoval(): (cutoffMs: number, batchSize: number) => number {
    const oldest = this.db.prepare(
      'SELECT id, time_ms, hash FROM audit_events ORDER BY id LIMIT ?',
    );
    const remove = this.db.prepare('DELETE FROM audit_events WHERE id <= ?');
    const setAnchor = this.db.prepare('UPDATE audit_chain SET anchor = ? WHERE id = 1');
    const dropIndexed = removedRowsDropper(this.db, this.textIndex.shape);
    const run = this.db.transaction((cutoffMs: number, batchSize: number) => {
      const rows = oldest.all(batchSize) as { id: number; time_ms: number; hash: string | null }[];
      const end = rows.findIndex((row) => row.time_ms >= cutoffMs);
      const removed = end < 0 ? rows : rows.slice(0, end);
      const last = removed.at(-1);
      if (!last) return 0;
      remove.run(last.id);
      dropIndexed(last.id);
      const anchor = removed.findLast((row) => row.hash !== null)?.hash;
      if (anchor) setAnchor.run(anchor);
      return removed.length;
    });
    return (cutoffMs, batchSize) => run.immediate(cutoffMs, batchSize);
  }

  async chainState(): Promise<ChainState> {
    const row = this.db
      .prepare('SELECT head, anchor, chained_from FROM audit_chain WHERE id = 1')
      .get() as { head: string; anchor: string; chained_from: number | null };
    return {
      head: row.head,
      anchor: row.anchor,
      chainedFrom: row.chained_from === null ? null : String(row.chained_from),
    };
  }

  async chainRows(afterId: string | undefined, limit: number): Promise<ChainRow[]> {
    const rows = this.db
      .prepare(
        `SELECT id, time_ms, event_type, code, user_name, session_id, data, prev_hash, hash
          FROM audit_events WHERE id > ? ORDER BY id LIMIT ?`,
      )
      .all(afterId === undefined ? 0 : BigInt(afterId), limit) as {
      id: number;
      time_ms: number;
      event_type: string;
      code: string;
      user_name: string | null;
      session_id: string | null;
      data: string;
      prev_hash: string | null;
      hash: string | null;
    }[];
    return rows.map((row) => ({
      id: String(row.id),
      timeMs: row.time_ms,
      eventType: row.event_type,
      code: row.code,
      user: row.user_name,
      sid: row.session_id,
      event: parseEvent(row.data),
      prevHash: row.prev_hash,
      hash: row.hash,
    }));
  }

  async emit(input: AuditEventInput): Promise<AuditEvent> {
    const prepared = prepareEvent(input, this.clusterName);
    this.append([prepared]);
    return prepared.event;
  }

  async emitBatch(inputs: readonly AuditEventInput[]): Promise<AuditEvent[]> {
    const prepared = inputs.map((input) => prepareEvent(input, this.clusterName));
    this.append(prepared);
    return prepared.map(({ event }) => event);
  }

  async replay(events: readonly AuditEvent[]): Promise<void> {
    this.append(events.map((event) => prepareReplay(event, this.clusterName)));
  }

  /**
   * Stores rows completed elsewhere (by prepareEvent, on the thread that took the events: the
   * writer thread's side of threaded-sqlite-audit-store.ts), in one transaction like emitBatch.
   */
  appendRows(rows: readonly AuditRow[]): void {
    this.append(rows.map((row) => ({ row, event: JSON.parse(row.json) as AuditEvent })));
  }

  async search(q: AuditSearchQuery): Promise<AuditSearchResult> {
    const checked = checkQuery(q);
    const rows = this.rows(checked);
    const page = rows.slice(0, checked.limit);
    const last = page.at(-1);
    return {
      events: page.map((row) => JSON.parse(row.data) as AuditEvent),
      startKey:
        rows.length > checked.limit && last
          ? encodeStartKey({ timeMs: last.time_ms, id: String(last.id) })
          : '',
    };
  }

  async readStored(q: AuditStoredQuery): Promise<AuditSearchResult> {
    const { sql, params } = sqliteStoredSql(checkStoredQuery(q));
    const rows = this.prepared(sql).all(...params) as TextSearchRow[];
    return storedPage(
      rows.map((row) => ({
        id: String(row.id),
        timeMs: row.time_ms,
        data: JSON.parse(row.data) as AuditEvent,
      })),
      q.startKey,
    );
  }

  private rows(q: CheckedQuery): TextSearchRow[] {
    const { searchText, searchPattern } = q;
    const strategy = this.textSearch;
    if (strategy !== 'scan' && searchText && searchPattern && usesTextIndex(searchText)) {
      // Several statements, one snapshot: another process's writes between them cannot show.
      const read = this.db.transaction(() =>
        searchWithTextIndex(
          (sql) => this.prepared(sql),
          this.textIndex,
          { ...q, searchText, searchPattern },
          strategy,
        ),
      );
      return read.deferred();
    }
    const { sql, params } = sqliteSearchSql(q);
    return this.db.prepare(sql).all(...params) as TextSearchRow[];
  }

  private prepared(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      // Shapes are few (bounds, order, how many types), but the number of types is the caller's.
      if (this.statements.size >= 100) this.statements.clear();
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  async searchSessionEvents(q: Omit<AuditSearchQuery, 'eventTypes'>): Promise<AuditSearchResult> {
    return this.search({ ...q, eventTypes: SESSION_END_EVENTS });
  }

  async removeOlderThan(cutoff: Date, batchSize: number): Promise<number> {
    return this.removeBatch(cutoff.getTime(), batchSize);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/** A row's event as verification sees it; text that is no JSON object counts as altered. */
function parseEvent(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return { unparseable: text };
  }
}
