import {
  assertValidKey,
  assertValidPrefix,
  assertValidPutItem,
  compareKeys,
  listStart,
} from './keys.js';
import type { Backend, Item, ListOptions, ListResult, PutItem, Watcher } from './types.js';
import { AlreadyExistsError, CompareFailedError, NotFoundError } from './types.js';
import { WatchHub } from './watch-hub.js';

export interface MemoryBackendOptions {
  /** How often expired items are removed (and their delete events emitted). */
  sweepIntervalMs?: number;
}

interface Stored {
  value: string;
  revision: bigint;
  expiresMs: number | null;
}

/**
 * Everything in one process's memory: for tests and throwaway dev servers. Operations run
 * synchronously inside each async method, so conditional writes are trivially atomic.
 */
export class MemoryBackend implements Backend {
  private readonly items = new Map<string, Stored>();
  /** Keys in key order, kept alongside the map so list() can binary-search a start key. */
  private readonly keys: string[] = [];
  private revision = 0n;
  private readonly hub = new WatchHub();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(options: MemoryBackendOptions = {}) {
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 1000);
    this.sweeper.unref();
  }

  async get(key: string): Promise<Item | null> {
    this.assertOpen();
    assertValidKey(key);
    const stored = this.live(key);
    return stored ? toItem(key, stored) : null;
  }

  async list(opts: ListOptions): Promise<ListResult> {
    this.assertOpen();
    const start = listStart(opts);
    const items: Item[] = [];
    for (let i = this.lowerBound(start); i < this.keys.length; i++) {
      const key = this.keys[i] as string;
      if (!key.startsWith(opts.prefix)) break;
      const stored = this.live(key);
      if (!stored) continue;
      if (opts.limit !== undefined && items.length === opts.limit) return { items, nextKey: key };
      items.push(toItem(key, stored));
    }
    return { items };
  }

  async create(item: PutItem): Promise<Item> {
    this.assertOpen();
    assertValidPutItem(item);
    if (this.live(item.key)) throw new AlreadyExistsError(item.key);
    return this.put(item);
  }

  async update(item: PutItem, expectedRevision?: string): Promise<Item> {
    this.assertOpen();
    assertValidPutItem(item);
    const current = this.live(item.key);
    if (!current) throw new NotFoundError(item.key);
    if (expectedRevision !== undefined && String(current.revision) !== expectedRevision) {
      throw new CompareFailedError(item.key, expectedRevision);
    }
    return this.put(item);
  }

  async upsert(item: PutItem): Promise<Item> {
    this.assertOpen();
    assertValidPutItem(item);
    return this.put(item);
  }

  async delete(key: string, expectedRevision?: string): Promise<void> {
    this.assertOpen();
    assertValidKey(key);
    const current = this.live(key);
    if (!current) throw new NotFoundError(key);
    if (expectedRevision !== undefined && String(current.revision) !== expectedRevision) {
      throw new CompareFailedError(key, expectedRevision);
    }
    this.remove(key);
  }

  async deleteRange(prefix: string): Promise<number> {
    this.assertOpen();
    assertValidPrefix(prefix);
    const doomed: string[] = [];
    for (let i = this.lowerBound(prefix); i < this.keys.length; i++) {
      const key = this.keys[i] as string;
      if (!key.startsWith(prefix)) break;
      doomed.push(key);
    }
    let live = 0;
    for (const key of doomed) {
      if (this.live(key)) live++;
      this.remove(key);
    }
    return live;
  }

  watch(prefixes: string[]): Watcher {
    this.assertOpen();
    return this.hub.add(prefixes, this.revision);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    this.hub.closeAll();
  }

  private put(item: PutItem): Item {
    const stored: Stored = {
      value: item.value,
      revision: ++this.revision,
      expiresMs: item.expires?.getTime() ?? null,
    };
    if (!this.items.has(item.key)) this.keys.splice(this.lowerBound(item.key), 0, item.key);
    this.items.set(item.key, stored);
    const result = toItem(item.key, stored);
    this.hub.publish(stored.revision, { type: 'put', item: toItem(item.key, stored) });
    return result;
  }

  private remove(key: string): void {
    this.items.delete(key);
    this.keys.splice(this.lowerBound(key), 1);
    const revision = ++this.revision;
    this.hub.publish(revision, { type: 'delete', key, revision: String(revision) });
  }

  private live(key: string): Stored | undefined {
    const stored = this.items.get(key);
    if (!stored || (stored.expiresMs !== null && stored.expiresMs <= Date.now())) return undefined;
    return stored;
  }

  private sweep(): void {
    const now = Date.now();
    const expired = [...this.items]
      .filter(([, s]) => s.expiresMs !== null && s.expiresMs <= now)
      .map(([key]) => key);
    for (const key of expired) this.remove(key);
  }

  /** Index of the first key >= `key`. */
  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareKeys(this.keys[mid] as string, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('backend is closed');
  }
}

function toItem(key: string, stored: Stored): Item {
  const item: Item = { key, value: stored.value, revision: String(stored.revision) };
  if (stored.expiresMs !== null) item.expires = new Date(stored.expiresMs);
  return item;
}
