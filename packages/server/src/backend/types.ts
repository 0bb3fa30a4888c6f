/**
 * The key-value backend: resources are JSON text stored under keys such as `/users/alice`.
 * Every write gets a revision from one counter shared by the whole backend, so revisions are
 * strictly increasing and watchers (possibly in other processes) can order what they see.
 */

export interface Item {
  key: string;
  /** JSON text of the resource; the backend stores it as-is. */
  value: string;
  /** Decimal string of the write that produced this item. */
  revision: string;
  /** Absent means "never expires". */
  expires?: Date;
}

export interface PutItem {
  key: string;
  value: string;
  expires?: Date;
}

export type WatchEvent =
  { type: 'put'; item: Item } | { type: 'delete'; key: string; revision: string };

/**
 * A live subscription to changes.
 *
 * - `ready` resolves once the watcher is established. Every change committed after `ready`
 *   resolves is delivered; nothing committed before `watch()` was called is. Changes committed
 *   in between may or may not be delivered (PostgreSQL needs a round trip to learn "now").
 * - `events` yields changes in revision order. It ends when `close()` is called (or the backend
 *   closes). It throws if the watcher can no longer guarantee a complete stream, for example
 *   when it fell so far behind that the event log was trimmed past it; the consumer should
 *   then re-list and watch again.
 * - Breaking out of a `for await` loop over `events` closes the watcher.
 */
export interface Watcher {
  readonly ready: Promise<void>;
  readonly events: AsyncIterable<WatchEvent>;
  close(): void;
}

export interface ListOptions {
  /** Only keys starting with this string; must start with `/`. */
  prefix: string;
  /** First key to return (inclusive), for paging. */
  startKey?: string;
  /** Maximum number of items; absent means all. */
  limit?: number;
}

export interface ListResult {
  items: Item[];
  /** First key of the next page; absent when this was the last page. */
  nextKey?: string;
}

export interface Backend {
  /** The live item under `key`, or null (expired items are invisible). */
  get(key: string): Promise<Item | null>;
  /** Live items under a prefix in key order (UTF-8 byte order). */
  list(opts: ListOptions): Promise<ListResult>;
  /** Throws AlreadyExistsError if a live item exists under the key. */
  create(item: PutItem): Promise<Item>;
  /** Throws NotFoundError if missing, CompareFailedError if `expectedRevision` differs. */
  update(item: PutItem, expectedRevision?: string): Promise<Item>;
  upsert(item: PutItem): Promise<Item>;
  /** Throws NotFoundError if missing, CompareFailedError if `expectedRevision` differs. */
  delete(key: string, expectedRevision?: string): Promise<void>;
  /**
   * Deletes every item under the prefix and returns how many live items it removed. Expired
   * items not yet swept are removed too (with a delete event, as the sweeper would emit).
   */
  deleteRange(prefix: string): Promise<number>;
  /** Changes to keys under any of the prefixes, in revision order. */
  watch(prefixes: string[]): Watcher;
  /** Stops timers, ends all watchers and releases the storage. */
  close(): Promise<void>;
}

export type BackendErrorCode = 'not_found' | 'already_exists' | 'compare_failed';

export class BackendError extends Error {
  constructor(
    readonly code: BackendErrorCode,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFoundError extends BackendError {
  constructor(key: string) {
    super('not_found', `key ${key} not found`);
  }
}

/** Deletes `key` (at `expectedRevision`, if given); a key already gone is what the caller wanted. */
export async function deleteIfPresent(
  backend: Pick<Backend, 'delete'>,
  key: string,
  expectedRevision?: string,
): Promise<void> {
  try {
    await backend.delete(key, expectedRevision);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
  }
}

export class AlreadyExistsError extends BackendError {
  constructor(key: string) {
    super('already_exists', `key ${key} already exists`);
  }
}

export class CompareFailedError extends BackendError {
  constructor(key: string, expectedRevision: string) {
    super('compare_failed', `key ${key} is not at revision ${expectedRevision}`);
  }
}

/** Ends a watcher's `events` with an error: its stream is no longer complete. */
export class WatchFailedError extends Error {
  override name = 'WatchFailedError';
}
