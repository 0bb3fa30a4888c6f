import pg from 'pg';
import { EventFeed } from './event-feed.js';
import type { LoggedEvent } from './event-feed.js';
import {
  assertValidKey,
  assertValidPrefix,
  assertValidPutItem,
  listStart,
  prefixUpperBound,
} from './keys.js';
import {
  ADVISORY_LOCK_NAMESPACE,
  inTransaction,
  openMigratedPool,
  PG_CONNECT_TIMEOUT_MS,
  quoteSchema,
  unlessUnavailable,
} from './pg-helpers.js';
import type { Backend, Item, ListOptions, ListResult, PutItem, Watcher } from './types.js';
import { AlreadyExistsError, CompareFailedError, NotFoundError } from './types.js';

export interface PostgresBackendOptions {
  url: string;
  /** Schema holding the tables; created if missing. Default `public`. */
  schema?: string;
  /** How often expired items are removed (emitting delete events) and the event log trimmed. */
  sweepIntervalMs?: number;
  /** Watchers also poll this often, in case the LISTEN connection silently stalls. */
  pollIntervalMs?: number;
  /**
   * Events are trimmed once they are both older than this and not among the newest
   * `eventRetentionCount` (at least 1 is kept, so a watcher can tell it missed some).
   */
  eventRetentionMs?: number;
  eventRetentionCount?: number;
  /**
   * A read of the event log that takes longer fails the watchers (they list again; a lock view
   * is stale meanwhile). A connection gone silent (a host gone, a cable cut) would otherwise hang
   * it, and with it every watch of this process, for as long as TCP keeps the socket. Default 10 s.
   */
  eventReadTimeoutMs?: number;
}

interface ItemRow {
  key: string;
  value: string;
  revision: string; // bigint arrives as a decimal string
  expires: Date | null;
}

interface EventRow extends Omit<ItemRow, 'value'> {
  type: 'put' | 'delete';
  value: string | null; // null for deletes
}

const ddl = (s: string) => `
  CREATE TABLE IF NOT EXISTS ${s}.kv_items (
    key text COLLATE "C" PRIMARY KEY,
    value text NOT NULL,
    revision bigint NOT NULL,
    expires timestamptz
  );
  CREATE INDEX IF NOT EXISTS kv_items_expires ON ${s}.kv_items (expires) WHERE expires IS NOT NULL;
  CREATE TABLE IF NOT EXISTS ${s}.kv_events (
    revision bigint PRIMARY KEY,
    type text NOT NULL CHECK (type IN ('put', 'delete')),
    key text COLLATE "C" NOT NULL,
    value text,
    expires timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE IF NOT EXISTS ${s}.kv_meta (name text PRIMARY KEY, value bigint NOT NULL);
  INSERT INTO ${s}.kv_meta (name, value) VALUES ('revision', 0) ON CONFLICT DO NOTHING;
`;

/**
 * Shared state for several servers. Every write runs in a transaction that first takes an
 * advisory lock (per schema), so writes are serialized: the revision counter in `kv_meta`
 * increases in commit order and without gaps. The same transaction appends to `kv_events`
 * and NOTIFYs a channel. Watchers LISTEN on one dedicated connection per instance and, on
 * each notification, read the log after the last revision they delivered, so coalesced or
 * late notifications cannot reorder or lose events.
 */
export class PostgresBackend implements Backend {
  private readonly feed: EventFeed;
  private readonly sweeper: NodeJS.Timeout;
  private poller: NodeJS.Timeout | null = null;
  private listener: pg.Client | null = null;
  private listening: Promise<void> | null = null;
  private sweeping = false;
  private closed = false;
  private readonly t: { items: string; events: string; meta: string };
  private readonly channel: string;

  static async open(options: PostgresBackendOptions): Promise<PostgresBackend> {
    const schema = options.schema ?? 'public';
    const quoted = quoteSchema(schema);
    const pool = await openMigratedPool(options.url, schema, ddl(quoted));
    return new PostgresBackend(pool, schema, options);
  }

  private constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    private readonly options: PostgresBackendOptions,
  ) {
    const s = quoteSchema(schema);
    this.t = { items: `${s}.kv_items`, events: `${s}.kv_events`, meta: `${s}.kv_meta` };
    this.channel = `postern_kv_${schema}`;
    this.feed = new EventFeed(
      { readAfter: (after, limit) => this.readAfter(after, limit) },
      (count) => this.onWatcherCountChange(count),
    );
    this.sweeper = setInterval(() => void this.sweep(), options.sweepIntervalMs ?? 1000);
    this.sweeper.unref();
  }

  async get(key: string): Promise<Item | null> {
    this.assertOpen();
    assertValidKey(key);
    const { rows } = await unlessUnavailable(() =>
      this.pool.query<ItemRow>(
        `SELECT key, value, revision, expires FROM ${this.t.items} WHERE key = $1 AND (expires IS NULL OR expires > now())`,
        [key],
      ),
    );
    return rows[0] ? toItem(rows[0]) : null;
  }

  async list(opts: ListOptions): Promise<ListResult> {
    this.assertOpen();
    const start = listStart(opts);
    // One extra row tells whether there is a next page and what its first key is.
    const { rows } = await unlessUnavailable(() =>
      this.pool.query<ItemRow>(
        `SELECT key, value, revision, expires FROM ${this.t.items}
         WHERE key >= $1 AND key < $2 AND (expires IS NULL OR expires > now()) ORDER BY key LIMIT $3`,
        [start, prefixUpperBound(opts.prefix), opts.limit === undefined ? null : opts.limit + 1],
      ),
    );
    const extra = opts.limit === undefined ? undefined : rows[opts.limit];
    const items = (extra ? rows.slice(0, opts.limit) : rows).map(toItem);
    return extra ? { items, nextKey: extra.key } : { items };
  }

  async create(item: PutItem): Promise<Item> {
    return this.put(item, (current) => {
      if (current) throw new AlreadyExistsError(item.key);
    });
  }

  async update(item: PutItem, expectedRevision?: string): Promise<Item> {
    return this.put(item, (current) => {
      if (!current) throw new NotFoundError(item.key);
      if (expectedRevision !== undefined && current.revision !== expectedRevision) {
        throw new CompareFailedError(item.key, expectedRevision);
      }
    });
  }

  async upsert(item: PutItem): Promise<Item> {
    return this.put(item, () => {});
  }

  async delete(key: string, expectedRevision?: string): Promise<void> {
    this.assertOpen();
    assertValidKey(key);
    await this.write(async (client) => {
      const current = await this.current(client, key);
      if (!current) throw new NotFoundError(key);
      if (expectedRevision !== undefined && current.revision !== expectedRevision) {
        throw new CompareFailedError(key, expectedRevision);
      }
      await client.query(`DELETE FROM ${this.t.items} WHERE key = $1`, [key]);
      await this.logDeletes(client, [key]);
    });
  }

  async deleteRange(prefix: string): Promise<number> {
    this.assertOpen();
    assertValidPrefix(prefix);
    return this.write(async (client) => {
      const { rows } = await client.query<{ key: string; live: boolean }>(
        `DELETE FROM ${this.t.items} WHERE key >= $1 AND key < $2
         RETURNING key, (expires IS NULL OR expires > now()) AS live`,
        [prefix, prefixUpperBound(prefix)],
      );
      await this.logDeletes(
        client,
        rows.map((row) => row.key),
      );
      return rows.filter((row) => row.live).length;
    });
  }

  watch(prefixes: string[]): Watcher {
    this.assertOpen();
    // "Now" is read only once LISTEN is active, so nothing committed after it can be missed.
    const head = this.ensureListening().then(() => this.head());
    return this.feed.watch(prefixes, head);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    if (this.poller) clearInterval(this.poller);
    this.feed.hub.closeAll();
    await this.listening?.catch(() => {});
    await this.listener?.end().catch(() => {});
    await this.pool.end();
  }

  /** Conditional put: `check` sees the live item (if any) while holding the write lock. */
  private async put(item: PutItem, check: (current: ItemRow | undefined) => void): Promise<Item> {
    this.assertOpen();
    assertValidPutItem(item);
    return this.write(async (client) => {
      check(await this.current(client, item.key));
      const expires = item.expires ?? null;
      // Bump the counter, store the item and log the event in one round trip.
      const { rows } = await client.query<{ revision: string }>(
        `WITH rev AS (UPDATE ${this.t.meta} SET value = value + 1 WHERE name = 'revision' RETURNING value),
         item AS (
           INSERT INTO ${this.t.items} (key, value, revision, expires) SELECT $1, $2, value, $3 FROM rev
           ON CONFLICT (key) DO UPDATE SET value = excluded.value, revision = excluded.revision, expires = excluded.expires
         ),
         event AS (INSERT INTO ${this.t.events} (revision, type, key, value, expires) SELECT value, 'put', $1, $2, $3 FROM rev)
         SELECT value AS revision FROM rev`,
        [item.key, item.value, expires],
      );
      const revision = rows[0]?.revision;
      if (revision === undefined) throw new Error(`revision counter missing in ${this.t.meta}`);
      return toItem({ key: item.key, value: item.value, revision, expires });
    });
  }

  /**
   * Runs a write under the per-schema advisory lock, NOTIFYs watchers on commit, and returns
   * after local watchers have the change queued.
   */
  private async write<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const result = await unlessUnavailable(() =>
      inTransaction(this.pool, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
          ADVISORY_LOCK_NAMESPACE,
          this.schema,
        ]);
        const value = await fn(client);
        // Delivered only if the transaction commits; the payload is informational.
        await client.query(
          `SELECT pg_notify($1, value::text) FROM ${this.t.meta} WHERE name = 'revision'`,
          [this.channel],
        );
        return value;
      }),
    );
    if (this.feed.watching) await this.feed.catchUp();
    return result;
  }

  private async current(client: pg.PoolClient, key: string): Promise<ItemRow | undefined> {
    const { rows } = await client.query<ItemRow>(
      `SELECT key, value, revision, expires FROM ${this.t.items} WHERE key = $1 AND (expires IS NULL OR expires > now())`,
      [key],
    );
    return rows[0];
  }

  /** Logs one delete event per key, each with its own revision, in key order. */
  private async logDeletes(client: pg.PoolClient, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    await client.query(
      `WITH rev AS (UPDATE ${this.t.meta} SET value = value + $2 WHERE name = 'revision' RETURNING value)
       INSERT INTO ${this.t.events} (revision, type, key)
       SELECT rev.value - $2 + k.n, 'delete', k.key FROM rev, unnest($1::text[]) WITH ORDINALITY AS k(key, n)`,
      [keys, keys.length],
    );
  }

  private async head(): Promise<bigint> {
    const { rows } = await this.pool.query<{ value: string }>(
      `SELECT value FROM ${this.t.meta} WHERE name = 'revision'`,
    );
    return BigInt(rows[0]?.value ?? '0');
  }

  private async readAfter(after: bigint, limit: number): Promise<LoggedEvent[]> {
    if (this.closed) return [];
    // node-postgres reads `query_timeout` per query; its types know it only on the client.
    const query: pg.QueryConfig & { query_timeout: number } = {
      text: `SELECT revision, type, key, value, expires FROM ${this.t.events} WHERE revision > $1 ORDER BY revision LIMIT $2`,
      values: [after.toString(), limit],
      query_timeout: this.options.eventReadTimeoutMs ?? 10_000,
    };
    const { rows } = await this.pool.query<EventRow>(query);
    return rows.map((row) => ({
      revision: BigInt(row.revision),
      event:
        row.type === 'put'
          ? { type: 'put', item: toItem({ ...row, value: row.value ?? '' }) }
          : { type: 'delete', key: row.key, revision: row.revision },
    }));
  }

  /** One LISTEN connection per instance, opened by the first watch() and kept until close(). */
  private ensureListening(): Promise<void> {
    this.listening ??= (async () => {
      const client = new pg.Client({
        connectionString: this.options.url,
        keepAlive: true,
        connectionTimeoutMillis: PG_CONNECT_TIMEOUT_MS,
      });
      client.on('notification', () => this.feed.poke());
      const lost = (reason: string) => {
        if (this.closed || this.listener !== client) return;
        // Without the connection we cannot promise a complete stream: watchers must re-watch,
        // and the next watch() opens a new connection.
        this.listener = null;
        this.listening = null;
        client.end().catch(() => {});
        this.feed.hub.failAll(`watch connection lost: ${reason}`);
      };
      client.on('error', (error) => lost(error.message));
      client.on('end', () => lost('connection closed'));
      try {
        await client.connect();
        await client.query(`LISTEN "${this.channel}"`);
      } catch (error) {
        this.listening = null;
        await client.end().catch(() => {});
        throw error;
      }
      this.listener = client;
    })();
    return this.listening;
  }

  private onWatcherCountChange(count: number): void {
    if (count > 0 && !this.poller && !this.closed) {
      this.poller = setInterval(() => this.feed.poke(), this.options.pollIntervalMs ?? 2000);
      this.poller.unref();
    } else if (count === 0 && this.poller) {
      clearInterval(this.poller);
      this.poller = null;
    }
  }

  private async sweep(): Promise<void> {
    if (this.closed || this.sweeping) return;
    this.sweeping = true;
    try {
      // Look before taking the write lock, so idle sweeps never block writers.
      const { rowCount } = await this.pool.query(
        `SELECT 1 FROM ${this.t.items} WHERE expires <= now() LIMIT 1`,
      );
      if (rowCount) {
        await this.write(async (client) => {
          const { rows } = await client.query<{ key: string }>(
            `DELETE FROM ${this.t.items} WHERE expires <= now() RETURNING key`,
          );
          await this.logDeletes(client, rows.map((row) => row.key).sort());
        });
      }
      await this.pool.query(
        `DELETE FROM ${this.t.events}
         WHERE revision <= (SELECT value FROM ${this.t.meta} WHERE name = 'revision') - $1
           AND created_at < now() - make_interval(secs => $2)`,
        [
          Math.max(1, this.options.eventRetentionCount ?? 1000),
          (this.options.eventRetentionMs ?? 5 * 60_000) / 1000,
        ],
      );
    } catch {
      // The database is unreachable or we are closing: the next sweep retries.
    } finally {
      this.sweeping = false;
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('backend is closed');
  }
}

function toItem(row: ItemRow): Item {
  const item: Item = { key: row.key, value: row.value, revision: row.revision };
  if (row.expires !== null) item.expires = row.expires;
  return item;
}
