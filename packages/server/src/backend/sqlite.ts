import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { EventFeed } from './event-feed.js';
import type { LoggedEvent } from './event-feed.js';
import {
  assertValidKey,
  assertValidPrefix,
  assertValidPutItem,
  listStart,
  prefixUpperBound,
} from './keys.js';
import { defaultBusyRetry, retryWhileBusy, type BusyRetryOptions } from './storage-busy.js';
import type { Backend, Item, ListOptions, ListResult, PutItem, Watcher } from './types.js';
import { AlreadyExistsError, CompareFailedError, NotFoundError } from './types.js';

export interface SqliteBackendOptions {
  /** How often expired items are removed (emitting delete events) and the event log trimmed. */
  sweepIntervalMs?: number;
  /** How often watchers look for writes made by other processes on the same file. */
  pollIntervalMs?: number;
  /**
   * Events are trimmed once they are both older than this and not among the newest
   * `eventRetentionCount` (at least 1 is kept, so a watcher can tell it missed some).
   */
  eventRetentionMs?: number;
  eventRetentionCount?: number;
  /** How long a call waits for another process's lock before failing with StorageBusyError. */
  busyRetry?: BusyRetryOptions;
}

/**
 * SQLite's own wait for a lock, kept tiny: better-sqlite3 waits synchronously, blocking the event
 * loop. Longer waits are timers between tries (retryWhileBusy).
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5;

interface ItemRow {
  key: string;
  value: string;
  revision: number;
  expires: number | null;
}

interface EventRow extends Omit<ItemRow, 'value'> {
  type: 'put' | 'delete';
  value: string | null; // null for deletes
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS kv_items (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    revision INTEGER NOT NULL,
    expires INTEGER
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS kv_items_expires ON kv_items (expires) WHERE expires IS NOT NULL;
  CREATE TABLE IF NOT EXISTS kv_events (
    revision INTEGER PRIMARY KEY,
    type TEXT NOT NULL CHECK (type IN ('put', 'delete')),
    key TEXT NOT NULL,
    value TEXT,
    expires INTEGER,
    created_at INTEGER NOT NULL
  );
  CREATE TABLE IF NOT EXISTS kv_meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
  INSERT OR IGNORE INTO kv_meta (name, value) VALUES ('revision', 0);
`;

/**
 * One SQLite file in the data dir. The server and admin CLI commands open the same file at
 * once, hence WAL (readers never block the writer). Every write also appends to `kv_events` in the same transaction; watchers read
 * that log, so a watcher here sees writes made by another process, in revision order.
 *
 * better-sqlite3 is synchronous, so a lock held elsewhere is never waited for inside SQLite
 * (which would block the event loop): every call retries on timers up to `busyRetry`'s deadline
 * and then fails with StorageBusyError, which callers answer as 503 "storage busy".
 */
export class SqliteBackend implements Backend {
  private readonly db: Database.Database;
  private readonly feed: EventFeed;
  private readonly sweeper: NodeJS.Timeout;
  private poller: NodeJS.Timeout | null = null;
  private readonly pollIntervalMs: number;
  private readonly retentionMs: number;
  private readonly retentionCount: number;
  private closed = false;
  private readonly busyRetry: BusyRetryOptions;

  private readonly sql: ReturnType<typeof prepareStatements>;

  constructor(path: string, options: SqliteBackendOptions = {}) {
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.retentionMs = options.eventRetentionMs ?? 5 * 60_000;
    this.retentionCount = Math.max(1, options.eventRetentionCount ?? 1000);
    this.busyRetry = options.busyRetry ?? defaultBusyRetry;
    mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    // Opening may wait: nothing is served yet, and two processes may create the schema at once.
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('journal_mode = WAL');
    // With WAL, NORMAL keeps the database consistent on power loss; it may only lose the
    // last commits, which is the usual trade for not fsyncing every write.
    this.db.pragma('synchronous = NORMAL');
    // IMMEDIATE: two processes creating the schema at once queue on the write lock.
    this.db.transaction(() => this.db.exec(SCHEMA)).immediate();
    this.sql = prepareStatements(this.db);
    this.db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    this.feed = new EventFeed(
      { readAfter: async (after, limit) => this.readAfter(after, limit) },
      (count) => this.onWatcherCountChange(count),
    );
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 1000);
    this.sweeper.unref();
  }

  async get(key: string): Promise<Item | null> {
    this.assertOpen();
    assertValidKey(key);
    const row = await this.retry(() => this.sql.get.get(key, Date.now()) as ItemRow | undefined);
    return row ? toItem(row) : null;
  }

  async list(opts: ListOptions): Promise<ListResult> {
    this.assertOpen();
    const start = listStart(opts);
    const limit = opts.limit ?? -1;
    // One extra row tells whether there is a next page and what its first key is.
    const rows = await this.retry(
      () =>
        this.sql.list.all(
          start,
          prefixUpperBound(opts.prefix),
          Date.now(),
          limit === -1 ? -1 : limit + 1,
        ) as ItemRow[],
    );
    const extra = limit === -1 ? undefined : rows[limit];
    const items = (extra ? rows.slice(0, limit) : rows).map(toItem);
    return extra ? { items, nextKey: extra.key } : { items };
  }

  async create(item: PutItem): Promise<Item> {
    return this.write(item, (current) => {
      if (current) throw new AlreadyExistsError(item.key);
    });
  }

  async update(item: PutItem, expectedRevision?: string): Promise<Item> {
    return this.write(item, (current) => {
      if (!current) throw new NotFoundError(item.key);
      if (expectedRevision !== undefined && String(current.revision) !== expectedRevision) {
        throw new CompareFailedError(item.key, expectedRevision);
      }
    });
  }

  async upsert(item: PutItem): Promise<Item> {
    return this.write(item, () => {});
  }

  async delete(key: string, expectedRevision?: string): Promise<void> {
    this.assertOpen();
    assertValidKey(key);
    // Look before taking the write lock: deleting what is not there (clearing a failure count
    // that was never set) must not wait on another process's lock. The transaction checks again.
    const present = await this.retry(() => this.sql.get.get(key, Date.now()) !== undefined);
    if (!present) throw new NotFoundError(key);
    const remove = this.db.transaction(() => {
      const current = this.sql.get.get(key, Date.now()) as ItemRow | undefined;
      if (!current) throw new NotFoundError(key);
      if (expectedRevision !== undefined && String(current.revision) !== expectedRevision) {
        throw new CompareFailedError(key, expectedRevision);
      }
      this.removeLogged(key);
    });
    await this.retry(() => remove.immediate());
    await this.deliver();
  }

  async deleteRange(prefix: string): Promise<number> {
    this.assertOpen();
    assertValidPrefix(prefix);
    const now = Date.now();
    const removeRange = this.db.transaction(() => {
      const rows = this.sql.deleteRange.all(prefix, prefixUpperBound(prefix)) as Pick<
        ItemRow,
        'key' | 'expires'
      >[];
      for (const row of rows) this.logDelete(row.key);
      return rows.filter((row) => row.expires === null || row.expires > now).length;
    });
    const live = await this.retry(() => removeRange.immediate());
    await this.deliver();
    return live;
  }

  watch(prefixes: string[]): Watcher {
    this.assertOpen();
    return this.feed.watch(prefixes, this.head());
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweeper);
    if (this.poller) clearInterval(this.poller);
    this.feed.hub.closeAll();
    this.db.close();
  }

  /** Conditional put: `check` sees the live item (if any) inside the write transaction. */
  private async write(item: PutItem, check: (current: ItemRow | undefined) => void): Promise<Item> {
    this.assertOpen();
    assertValidPutItem(item);
    const expires = item.expires?.getTime() ?? null;
    const put = this.db.transaction((): ItemRow => {
      check(this.sql.get.get(item.key, Date.now()) as ItemRow | undefined);
      const revision = this.nextRevision();
      this.sql.upsert.run(item.key, item.value, revision, expires);
      this.sql.logEvent.run(revision, 'put', item.key, item.value, expires, Date.now());
      return { key: item.key, value: item.value, revision, expires };
    });
    const row = await this.retry(() => put.immediate());
    await this.deliver();
    return toItem(row);
  }

  /** A call that waits out another process's lock on timers, never inside SQLite. */
  private async retry<T>(operation: () => T): Promise<T> {
    // The file may be closed while we wait between tries: each try checks first.
    return retryWhileBusy(() => {
      this.assertOpen();
      return operation();
    }, this.busyRetry);
  }

  /** Removes a key and logs its delete event; callers hold the write transaction. */
  private removeLogged(key: string): void {
    this.sql.remove.run(key);
    this.logDelete(key);
  }

  private logDelete(key: string): void {
    this.sql.logEvent.run(this.nextRevision(), 'delete', key, null, null, Date.now());
  }

  private nextRevision(): number {
    return (this.sql.bumpRevision.get() as { value: number }).value;
  }

  private head(): bigint {
    return BigInt((this.sql.head.get() as { value: number }).value);
  }

  /** Local watchers get our own writes before the write call returns. */
  private async deliver(): Promise<void> {
    if (this.feed.watching) await this.feed.catchUp();
  }

  private readAfter(after: bigint, limit: number): LoggedEvent[] {
    if (this.closed) return [];
    const rows = this.sql.readEvents.all(after, limit) as EventRow[];
    return rows.map((row) => ({
      revision: BigInt(row.revision),
      event:
        row.type === 'put'
          ? { type: 'put', item: toItem({ ...row, value: row.value ?? '' }) }
          : { type: 'delete', key: row.key, revision: String(row.revision) },
    }));
  }

  private onWatcherCountChange(count: number): void {
    if (count > 0 && !this.poller && !this.closed) {
      // Writes from other processes only show up by polling; the query is an empty range scan.
      this.poller = setInterval(() => this.feed.poke(), this.pollIntervalMs);
      this.poller.unref();
    } else if (count === 0 && this.poller) {
      clearInterval(this.poller);
      this.poller = null;
    }
  }

  private sweep(): void {
    if (this.closed) return;
    try {
      const now = Date.now();
      // Look before taking the write lock, so idle sweeps never block other writers.
      if (this.sql.anyExpired.get(now)) {
        this.db
          .transaction(() => {
            for (const { key } of this.sql.removeExpired.all(now) as { key: string }[])
              this.logDelete(key);
          })
          .immediate();
        this.feed.poke();
      }
      this.sql.trimEvents.run(this.head() - BigInt(this.retentionCount), now - this.retentionMs);
    } catch {
      // SQLITE_BUSY from a long writer elsewhere: the next sweep will retry.
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('backend is closed');
  }
}

function prepareStatements(db: Database.Database) {
  return {
    get: db.prepare(
      'SELECT key, value, revision, expires FROM kv_items WHERE key = ? AND (expires IS NULL OR expires > ?)',
    ),
    list: db.prepare(
      `SELECT key, value, revision, expires FROM kv_items
       WHERE key >= ? AND key < ? AND (expires IS NULL OR expires > ?) ORDER BY key LIMIT ?`,
    ),
    upsert: db.prepare(
      `INSERT INTO kv_items (key, value, revision, expires) VALUES (?, ?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, revision = excluded.revision, expires = excluded.expires`,
    ),
    remove: db.prepare('DELETE FROM kv_items WHERE key = ?'),
    deleteRange: db.prepare(
      'DELETE FROM kv_items WHERE key >= ? AND key < ? RETURNING key, expires',
    ),
    anyExpired: db.prepare('SELECT 1 FROM kv_items WHERE expires <= ? LIMIT 1'),
    removeExpired: db.prepare('DELETE FROM kv_items WHERE expires <= ? RETURNING key'),
    bumpRevision: db.prepare(
      "UPDATE kv_meta SET value = value + 1 WHERE name = 'revision' RETURNING value",
    ),
    head: db.prepare("SELECT value FROM kv_meta WHERE name = 'revision'"),
    logEvent: db.prepare(
      'INSERT INTO kv_events (revision, type, key, value, expires, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    readEvents: db.prepare(
      'SELECT revision, type, key, value, expires FROM kv_events WHERE revision > ? ORDER BY revision LIMIT ?',
    ),
    trimEvents: db.prepare('DELETE FROM kv_events WHERE revision <= ? AND created_at < ?'),
  };
}

function toItem(row: ItemRow): Item {
  const item: Item = { key: row.key, value: row.value, revision: String(row.revision) };
  if (row.expires !== null) item.expires = new Date(row.expires);
  return item;
}
