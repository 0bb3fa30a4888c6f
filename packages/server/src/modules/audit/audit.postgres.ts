import type pg from 'pg';
import {
  ADVISORY_LOCK_NAMESPACE,
  inTransaction,
  openMigratedPool,
  quoteSchema,
} from '../../backend/pg-helpers.js';
import type { CheckedQuery, CheckedStoredQuery } from './audit.common.js';
import {
  SESSION_END_EVENTS,
  checkQuery,
  checkStoredQuery,
  encodeStartKey,
  prepareEvent,
  prepareReplay,
  rangeBounds,
  storedPage,
  type AuditRow,
} from './audit.common.js';
import type { AuditChainSource, ChainRow, ChainState } from './audit-chain.js';
import { CHAIN_GENESIS, chainHash } from './audit-chain.js';
import {
  foldedTextSql,
  foldText,
  installTrigramIndex,
  type AuditStoreLog,
} from './audit-text.postgres.js';
import type {
  AuditEvent,
  AuditEventInput,
  AuditSearchQuery,
  AuditSearchResult,
  AuditStoredQuery,
  ReplayableAuditStore,
} from './audit.types.js';

export interface PostgresAuditStoreOptions {
  url: string;
  /** Schema holding the table; created if missing. Default `public`. */
  schema?: string;
  /** Told when the text search has to do without its index (no pg_trgm). */
  log?: AuditStoreLog;
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
    data json NOT NULL,
    prev_hash text,
    hash text
  );
  ALTER TABLE ${s}.audit_events ADD COLUMN IF NOT EXISTS prev_hash text;
  ALTER TABLE ${s}.audit_events ADD COLUMN IF NOT EXISTS hash text;
  CREATE TABLE IF NOT EXISTS ${s}.audit_chain (
    id int PRIMARY KEY CHECK (id = 1),
    head text NOT NULL,
    anchor text NOT NULL,
    chained_from bigint
  );
  INSERT INTO ${s}.audit_chain (id, head, anchor)
    VALUES (1, '${CHAIN_GENESIS}', '${CHAIN_GENESIS}') ON CONFLICT DO NOTHING;
  CREATE INDEX IF NOT EXISTS audit_events_time ON ${s}.audit_events (time, id);
  CREATE INDEX IF NOT EXISTS audit_events_type_time ON ${s}.audit_events (event_type, time, id);
  CREATE INDEX IF NOT EXISTS audit_events_user_time ON ${s}.audit_events (user_name, time, id) WHERE user_name IS NOT NULL;
  CREATE INDEX IF NOT EXISTS audit_events_sid_time ON ${s}.audit_events (session_id, time, id) WHERE session_id IS NOT NULL;
`;

/**
 * A time range (with its type filter) the planner expects to hold fewer rows than this is searched
 * for text by walking it in order (about 6 µs a row: at most ~30 ms) rather than through the trigram index,
 * whose cost grows with how common the text's trigrams are in the whole log (a one-day search
 * for `node-17"` took 54 ms through it against 16 ms walking, at 1M events).
 */
export const textWalkMaxRows = 5000;

/**
 * Whether the trigram index serves a search better than walking its range in page order, from
 * the planner's estimates of the rows in the range (`rangeRows`) and of those holding the folded
 * text (`textRows`). Walking visits about limit × rangeRows / textRows rows at ~3 µs each (the
 * text check on rows read in order); the index visits every row holding the folded text at ~7 µs
 * each (folded again, checked twice, then sorted): it wins below √(limit × rangeRows / 2) of them.
 * At 1M events and a page of 5,000 that is 50,000: `root` (in every event) walks, and `node-17"`
 * (one in 200) reads the index.
 */
export function textIndexPays(rangeRows: number, textRows: number, limit: number): boolean {
  if (rangeRows < textWalkMaxRows) return false;
  return textRows < Math.sqrt((limit * rangeRows) / 2);
}

/** The conditions of a search but its text, and the parameters they number. */
function rangeConditions(q: CheckedQuery) {
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
  return { where, params, next };
}

/** The folded text's condition: the one the trigram index serves (audit-text.postgres.ts). */
function foldedTextCondition(pattern: string, next: (value: unknown) => string): string {
  return `${foldedTextSql('data::text')} ILIKE ${next(foldText(pattern))} ESCAPE '\\'`;
}

/**
 * Keyset search (see the SQLite twin); exported so a test can EXPLAIN it. With `textIndex`, the
 * folded text's condition lets the trigram index find the candidate rows and the text's own
 * condition keeps the ones that hold it; `textIndex: false` words the text's condition alone so
 * that no index can serve it and the range is walked in page order.
 */
export function postgresSearchSql(
  table: string,
  q: CheckedQuery,
  { textIndex = true }: { textIndex?: boolean } = {},
): { sql: string; params: unknown[] } {
  const { where, params, next } = rangeConditions(q);
  if (q.searchPattern) {
    const matches = `data::text ILIKE ${next(q.searchPattern)} ESCAPE '\\'`;
    // Walking, the planner must not think the text rare, or it reads the whole range and sorts
    // it: it takes a coalesce for "half the rows", and walks the range in page order.
    if (textIndex) where.push(foldedTextCondition(q.searchPattern, next), matches);
    else where.push(`coalesce(${matches}, false)`);
  }
  const dir = q.order === 'asc' ? 'ASC' : 'DESC';
  // Milliseconds since the epoch, exactly: extract() returns numeric, not a float.
  const sql = `SELECT id, (extract(epoch FROM time) * 1000)::bigint AS time_ms, data FROM ${table}
    WHERE ${where.join(' AND ')} ORDER BY time ${dir}, id ${dir} LIMIT ${next(q.limit + 1)}`;
  return { sql, params };
}

/**
 * The stored-order read (readStored; see the SQLite twin). Ids are stored order: every writer
 * takes the log's advisory lock before its insert draws them (`locked`), and commits before
 * letting go, so no id becomes visible ahead of a smaller one.
 */
export function postgresStoredSql(
  table: string,
  q: CheckedStoredQuery,
): { sql: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const next = (value: unknown) => `$${params.push(value)}`;
  if (q.afterId !== undefined) where.push(`id > ${next(q.afterId)}::bigint`);
  else if (q.fromMs !== undefined) {
    where.push(`id >= (SELECT min(id) FROM ${table} WHERE time >= ${next(new Date(q.fromMs))})`);
  }
  if (q.eventTypes) where.push(`event_type IN (${q.eventTypes.map(next).join(', ')})`);
  const conditions = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  return {
    sql: `SELECT id, (extract(epoch FROM time) * 1000)::bigint AS time_ms, data FROM ${table}
      ${conditions} ORDER BY id LIMIT ${next(q.limit)}`,
    params,
  };
}

/**
 * The planner's estimate of the rows in the search's range (text aside), or with `folded`, of
 * those in it holding the folded text: EXPLAIN only, from the table's and the trigram index's
 * statistics, so it reads no rows (counting them meant visiting the heap for each).
 */
export function postgresRangeEstimateSql(
  table: string,
  q: CheckedQuery,
  { folded = false }: { folded?: boolean } = {},
): { sql: string; params: unknown[] } {
  const { where, params, next } = rangeConditions(q);
  if (folded && q.searchPattern) where.push(foldedTextCondition(q.searchPattern, next));
  return {
    sql: `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${table} WHERE ${where.join(' AND ')}`,
    params,
  };
}

/** `Plan Rows` of an EXPLAIN (FORMAT JSON) answer (pg parses the json column, or not). */
export function estimatedRows(rows: { 'QUERY PLAN': unknown }[]): number {
  const raw = rows[0]?.['QUERY PLAN'];
  const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as [
    { Plan: { 'Plan Rows': number } },
  ];
  return plan[0].Plan['Plan Rows'];
}

/** The audit log in PostgreSQL, shared by every server of a high-availability cluster. */
export class PostgresAuditStore implements ReplayableAuditStore, AuditChainSource {
  private readonly table: string;
  private readonly chain: string;
  /** Names the advisory lock every writer of this log takes, whichever proxy it runs in. */
  private readonly lockName: string;
  private closed = false;

  static async open(
    options: PostgresAuditStoreOptions,
    clusterName: string,
  ): Promise<PostgresAuditStore> {
    const schema = options.schema ?? 'public';
    const quoted = quoteSchema(schema);
    const pool = await openMigratedPool(options.url, schema, ddl(quoted));
    const textIndexed = await installTrigramIndex(pool, quoted, options.log ?? (() => {}));
    return new PostgresAuditStore(pool, quoted, schema, clusterName, textIndexed);
  }

  private constructor(
    private readonly pool: pg.Pool,
    quotedSchema: string,
    schema: string,
    private readonly clusterName: string,
    /** Whether the trigram index is there: without it, folding the text would only cost. */
    private readonly textIndexed: boolean,
  ) {
    this.table = `${quotedSchema}.audit_events`;
    this.chain = `${quotedSchema}.audit_chain`;
    this.lockName = `${schema}.audit_events`;
  }

  /**
   * Runs `fn` under the log's transaction-scoped advisory lock: writers from every proxy take
   * turns, so each reads the head the previous one committed and the rows form one chain.
   */
  private locked<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
        ADVISORY_LOCK_NAMESPACE,
        this.lockName,
      ]);
      return fn(client);
    });
  }

  async chainState(): Promise<ChainState> {
    const { rows } = await this.pool.query<{
      head: string;
      anchor: string;
      chained_from: string | null;
    }>(`SELECT head, anchor, chained_from FROM ${this.chain} WHERE id = 1`);
    const row = rows[0];
    if (!row) return { head: CHAIN_GENESIS, anchor: CHAIN_GENESIS, chainedFrom: null };
    return { head: row.head, anchor: row.anchor, chainedFrom: row.chained_from };
  }

  async chainRows(afterId: string | undefined, limit: number): Promise<ChainRow[]> {
    const { rows } = await this.pool.query<{
      id: string;
      time_ms: string;
      event_type: string;
      code: string;
      user_name: string | null;
      session_id: string | null;
      data: Record<string, unknown>;
      prev_hash: string | null;
      hash: string | null;
    }>(
      `SELECT id, (extract(epoch FROM time) * 1000)::bigint AS time_ms, event_type, code,
        user_name, session_id, data, prev_hash, hash
        FROM ${this.table} WHERE id > $1 ORDER BY id LIMIT $2`,
      [afterId ?? '0', limit],
    );
    return rows.map((row) => ({
      id: row.id,
      timeMs: Number(row.time_ms),
      eventType: row.event_type,
      code: row.code,
      user: row.user_name,
      sid: row.session_id,
      event: row.data !== null && typeof row.data === 'object' ? row.data : {},
      prevHash: row.prev_hash,
      hash: row.hash,
    }));
  }

  async emit(input: AuditEventInput): Promise<AuditEvent> {
    const [event] = await this.emitBatch([input]);
    return event!;
  }

  async emitBatch(inputs: readonly AuditEventInput[]): Promise<AuditEvent[]> {
    const prepared = inputs.map((input) => prepareEvent(input, this.clusterName));
    await this.append(prepared);
    return prepared.map(({ event }) => event);
  }

  async replay(events: readonly AuditEvent[]): Promise<void> {
    await this.append(events.map((event) => prepareReplay(event, this.clusterName)));
  }

  /** The inserts and the chain head move together, in one transaction under the chain's lock. */
  private async append(prepared: readonly { event: AuditEvent; row: AuditRow }[]): Promise<void> {
    if (prepared.length === 0) return;
    await this.locked(async (client) => {
      const { rows } = await client.query<{ head: string }>(
        `SELECT head FROM ${this.chain} WHERE id = 1`,
      );
      let head = rows[0]?.head ?? CHAIN_GENESIS;
      let firstId: string | undefined;
      for (const { event, row } of prepared) {
        if (row.replayOf !== undefined && (await this.holds(client, row.timeMs, row.replayOf)))
          continue;
        const hash = chainHash(head, event);
        const inserted = await client.query<{ id: string }>(
          `INSERT INTO ${this.table} (time, event_type, code, user_name, session_id, data, prev_hash, hash)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
          [new Date(row.timeMs), row.eventType, row.code, row.user, row.sid, row.json, head, hash],
        );
        firstId ??= inserted.rows[0]?.id;
        head = hash;
      }
      if (firstId === undefined) return;
      await client.query(
        `UPDATE ${this.chain} SET head = $1, chained_from = coalesce(chained_from, $2) WHERE id = 1`,
        [head, firstId],
      );
    });
  }

  /** Whether the event with this uid is stored; found through the time index, at its time. */
  private async holds(client: pg.PoolClient, timeMs: number, uid: string): Promise<boolean> {
    const { rowCount } = await client.query(
      `SELECT 1 FROM ${this.table} WHERE time = $1 AND data->>'uid' = $2 LIMIT 1`,
      [new Date(timeMs), uid],
    );
    return (rowCount ?? 0) > 0;
  }

  async search(q: AuditSearchQuery): Promise<AuditSearchResult> {
    const checked = checkQuery(q);
    const textIndex = checked.searchPattern !== undefined && (await this.textIndexPays(checked));
    const { sql, params } = postgresSearchSql(this.table, checked, { textIndex });
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

  async readStored(q: AuditStoredQuery): Promise<AuditSearchResult> {
    const { sql, params } = postgresStoredSql(this.table, checkStoredQuery(q));
    const { rows } = await this.pool.query<{ id: string; time_ms: string; data: AuditEvent }>(
      sql,
      params,
    );
    return storedPage(
      rows.map((row) => ({ id: row.id, timeMs: Number(row.time_ms), data: row.data })),
      q.startKey,
    );
  }

  /** Whether the trigram index should serve the search's text (see textIndexPays). */
  private async textIndexPays(q: CheckedQuery): Promise<boolean> {
    if (!this.textIndexed) return false;
    const estimate = async (folded: boolean) => {
      const { sql, params } = postgresRangeEstimateSql(this.table, q, { folded });
      const { rows } = await this.pool.query<{ 'QUERY PLAN': unknown }>(sql, params);
      return estimatedRows(rows);
    };
    const rangeRows = await estimate(false);
    return rangeRows >= textWalkMaxRows && textIndexPays(rangeRows, await estimate(true), q.limit);
  }

  async searchSessionEvents(q: Omit<AuditSearchQuery, 'eventTypes'>): Promise<AuditSearchResult> {
    return this.search({ ...q, eventTypes: SESSION_END_EVENTS });
  }

  async removeOlderThan(cutoff: Date, batchSize: number): Promise<number> {
    // A prefix of the chain (write order) up to the first row still inside the window; the
    // last removed row's hash becomes the anchor (see the SQLite twin).
    return this.locked(async (client) => {
      const { rows } = await client.query<{ id: string; old: boolean; hash: string | null }>(
        `SELECT id, time < $1 AS old, hash FROM ${this.table} ORDER BY id LIMIT $2`,
        [cutoff, batchSize],
      );
      const end = rows.findIndex((row) => !row.old);
      const removed = end < 0 ? rows : rows.slice(0, end);
      const last = removed.at(-1);
      if (!last) return 0;
      await client.query(`DELETE FROM ${this.table} WHERE id <= $1`, [last.id]);
      const anchor = removed.findLast((row) => row.hash !== null)?.hash;
      if (anchor) await client.query(`UPDATE ${this.chain} SET anchor = $1 WHERE id = 1`, [anchor]);
      return removed.length;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
