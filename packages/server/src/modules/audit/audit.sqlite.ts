import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_BUSY_TIMEOUT_MS } from '../../backend/sqlite.js';
import type { CheckedQuery } from './audit.common.js';
import {
  SESSION_END_EVENTS,
  checkQuery,
  encodeStartKey,
  prepareEvent,
  rangeBounds,
} from './audit.common.js';
import type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  AuditSearchResult,
  AuditStore,
} from './audit.types.js';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS audit_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time_ms INTEGER NOT NULL,
    event_type TEXT NOT NULL,
    code TEXT NOT NULL,
    user_name TEXT,
    session_id TEXT,
    data TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS audit_events_time ON audit_events (time_ms, id);
  CREATE INDEX IF NOT EXISTS audit_events_type_time ON audit_events (event_type, time_ms, id);
  CREATE INDEX IF NOT EXISTS audit_events_user_time ON audit_events (user_name, time_ms, id) WHERE user_name IS NOT NULL;
  CREATE INDEX IF NOT EXISTS audit_events_sid_time ON audit_events (session_id, time_ms, id) WHERE session_id IS NOT NULL;
`;

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
  // JSON, so a rare text costs a longer walk, but pages stay keyset-bounded.
  if (q.searchPattern) add(`data LIKE ? ESCAPE '\\'`, q.searchPattern);
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  params.push(q.limit + 1);
  const sql = `SELECT id, time_ms, data FROM audit_events WHERE ${where.join(' AND ')}
    ORDER BY time_ms ${dir}, id ${dir} LIMIT ?`;
  return { sql, params };
}

/** The audit log in its own SQLite file (WAL, like the state file, so the CLI can read it live). */
export class SqliteAuditStore implements AuditStore {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;

  constructor(
    path: string,
    private readonly clusterName: string,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.transaction(() => this.db.exec(SCHEMA)).immediate();
    // From here on a lock held elsewhere fails fast instead of stopping the event loop inside
    // SQLite; the spool (spool/) keeps the events that could not be written and retries them.
    this.db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    this.insert = this.db.prepare(
      'INSERT INTO audit_events (time_ms, event_type, code, user_name, session_id, data) VALUES (?, ?, ?, ?, ?, ?)',
    );
  }

  async emit(input: AuditEventInput): Promise<AuditEvent> {
    const { event, row } = prepareEvent(input, this.clusterName);
    this.insert.run(row.timeMs, row.eventType, row.code, row.user, row.sid, row.json);
    return event;
  }

  async search(q: AuditSearchQuery): Promise<AuditSearchResult> {
    const checked = checkQuery(q);
    const { sql, params } = sqliteSearchSql(checked);
    const rows = this.db.prepare(sql).all(...params) as {
      id: number;
      time_ms: number;
      data: string;
    }[];
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

  async searchSessionEvents(q: Omit<AuditSearchQuery, 'eventTypes'>): Promise<AuditSearchResult> {
    return this.search({ ...q, eventTypes: SESSION_END_EVENTS });
  }

  async removeOlderThan(cutoff: Date, batchSize: number): Promise<number> {
    // The inner SELECT walks the (time_ms, id) index from the oldest row, so each batch is cheap.
    return this.db
      .prepare(
        `DELETE FROM audit_events WHERE id IN
          (SELECT id FROM audit_events WHERE time_ms < ? ORDER BY time_ms, id LIMIT ?)`,
      )
      .run(cutoff.getTime(), batchSize).changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
