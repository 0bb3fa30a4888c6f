import type pg from 'pg';
import { openMigratedPool, quoteSchema } from '../../backend/pg-helpers.js';
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

export interface PostgresAuditStoreOptions {
  url: string;
  /** Schema holding the table; created if missing. Default `public`. */
  schema?: string;
}

// `time` is timestamptz so people can query the log with SQL intervals; event JSON is `json`
// (not jsonb) so the stored text, key order included, comes back as it was written.
const ddl = (s: string) => `
  CREATE TABLE IF NOT EXISTS ${s}.audit_events (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    time timestamptz NOT NULL,
    event_type text NOT NULL,
    code text NOT NULL,
    user_name text,
    session_id text,
    data json NOT NULL
  );
  CREATE INDEX IF NOT EXISTS audit_events_time ON ${s}.audit_events (time, id);
  CREATE INDEX IF NOT EXISTS audit_events_type_time ON ${s}.audit_events (event_type, time, id);
  CREATE INDEX IF NOT EXISTS audit_events_user_time ON ${s}.audit_events (user_name, time, id) WHERE user_name IS NOT NULL;
  CREATE INDEX IF NOT EXISTS audit_events_sid_time ON ${s}.audit_events (session_id, time, id) WHERE session_id IS NOT NULL;
`;

/** Keyset search (see the SQLite twin); exported so a test can EXPLAIN it. */
export function postgresSearchSql(
  table: string,
  q: CheckedQuery,
): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const next = (value: unknown) => `$${params.push(value)}`;
  const { lower, upper } = rangeBounds(q);
  const cursor = () =>
    q.after ? `(${next(new Date(q.after.timeMs))}, ${next(q.after.id)}::bigint)` : '';
  where.push(
    lower === 'cursor' ? `(time, id) > ${cursor()}` : `time >= ${next(new Date(q.fromMs))}`,
  );
  where.push(upper === 'cursor' ? `(time, id) < ${cursor()}` : `time < ${next(new Date(q.toMs))}`);
  if (q.eventTypes) where.push(`event_type IN (${q.eventTypes.map(next).join(', ')})`);
  if (q.searchPattern) where.push(`data::text ILIKE ${next(q.searchPattern)} ESCAPE '\\'`);
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  // Milliseconds since the epoch, exactly: extract() returns numeric, not a float.
  const sql = `SELECT id, (extract(epoch FROM time) * 1000)::bigint AS time_ms, data FROM ${table}
    WHERE ${where.join(' AND ')} ORDER BY time ${dir}, id ${dir} LIMIT ${next(q.limit + 1)}`;
  return { sql, params };
}

/** The audit log in PostgreSQL, shared by every server of a high-availability cluster. */
export class PostgresAuditStore implements AuditStore {
  private readonly table: string;
  private closed = false;

  static async open(
    options: PostgresAuditStoreOptions,
    clusterName: string,
  ): Promise<PostgresAuditStore> {
    const schema = options.schema ?? 'public';
    const quoted = quoteSchema(schema);
    const pool = await openMigratedPool(options.url, schema, ddl(quoted));
    return new PostgresAuditStore(pool, quoted, clusterName);
  }

  private constructor(
    private readonly pool: pg.Pool,
    quotedSchema: string,
    private readonly clusterName: string,
  ) {
    this.table = `${quotedSchema}.audit_events`;
  }

  async emit(input: AuditEventInput): Promise<AuditEvent> {
    const { event, row } = prepareEvent(input, this.clusterName);
    await this.pool.query(
      `INSERT INTO ${this.table} (time, event_type, code, user_name, session_id, data) VALUES ($1, $2, $3, $4, $5, $6)`,
      [new Date(row.timeMs), row.eventType, row.code, row.user, row.sid, row.json],
    );
    return event;
  }

  async search(q: AuditSearchQuery): Promise<AuditSearchResult> {
    const checked = checkQuery(q);
    const { sql, params } = postgresSearchSql(this.table, checked);
    // pg parses `json` columns itself; bigint columns arrive as decimal strings.
    const { rows } = await this.pool.query<{ id: string; time_ms: string; data: AuditEvent }>(
      sql,
      params,
    );
    const page = rows.slice(0, checked.limit);
    const last = page.at(-1);
    return {
      events: page.map((row) => row.data),
      startKey:
        rows.length > checked.limit && last
          ? encodeStartKey({ timeMs: Number(last.time_ms), id: last.id })
          : '',
    };
  }

  async searchSessionEvents(q: Omit<AuditSearchQuery, 'eventTypes'>): Promise<AuditSearchResult> {
    return this.search({ ...q, eventTypes: SESSION_END_EVENTS });
  }

  async removeOlderThan(cutoff: Date, batchSize: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM ${this.table} WHERE id IN
        (SELECT id FROM ${this.table} WHERE time < $1 ORDER BY time, id LIMIT $2)`,
      [cutoff, batchSize],
    );
    return rowCount ?? 0;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
