import { EventEmitter } from 'node:events';
import type { Backend, Item } from './types.js';

export interface WatchedCacheOptions<T> {
  /** Keys under this prefix (`/roles/`); the rest of the key is the entry's name. */
  prefix: string;
  /** Turns a stored value into the cached one; a value that fails to parse is skipped. */
  parse: (item: Item) => T;
  /** Told about watch failures (before the re-list) and unreadable values. */
  onError?: (error: unknown) => void;
  /** Wait before watching again after a failure; doubles up to 30 s. */
  retryMs?: number;
}

interface Entry<T> {
  value: T;
  revision: bigint;
}

/**
 * An in-memory copy of every item under a prefix, kept current through the backend's watch, so
 * hot paths (the access guard, lock checks) read memory while writes made by any process on the
 * same storage reach it within the watch's latency. Follows the watch contract: watch first, list
 * once the watch is ready, then apply events; on WatchFailedError (or any error) list and watch
 * again. Events older than what the list returned are skipped by revision.
 *
 * Emits 'put' (name, value) and 'delete' (name, value) for every change it applies, including
 * the differences a re-list finds.
 */
export class WatchedCache<T> extends EventEmitter {
  private entries = new Map<string, Entry<T>>();
  private closed = false;
  private stopWatch: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /** Ends the wait before the next try at once (close: the loop must not wait for a timer). */
  private wakeUp: (() => void) | null = null;
  /** Bumped on every change, so callers can memoise what they derive from the cache. */
  generation = 0;
  /**
   * True from a watch failure until the re-list that follows it has loaded: meanwhile changes
   * may be missing (a lock written elsewhere, say). Emits 'stale' and 'fresh' as it changes.
   */
  stale = false;
  /** True once the first list has loaded (readiness waits for it). */
  loaded = false;

  constructor(
    private readonly backend: Backend,
    private readonly options: WatchedCacheOptions<T>,
  ) {
    super();
  }

  /** Resolves once the first list is loaded; watching then goes on until close(). */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.running = this.run(resolve, reject);
    });
  }

  get(name: string): T | undefined {
    return this.entries.get(name)?.value;
  }

  values(): T[] {
    return [...this.entries.values()].map((entry) => entry.value);
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // A loop waiting to try again would otherwise wait on a timer that no longer fires.
    this.wakeUp?.();
    this.stopWatch?.();
    await this.running;
  }

  private async run(loaded: () => void, failed: (error: unknown) => void): Promise<void> {
    let first = true;
    let delay = this.options.retryMs ?? 1000;
    while (!this.closed) {
      try {
        const watcher = this.backend.watch([this.options.prefix]);
        this.stopWatch = () => watcher.close();
        try {
          await watcher.ready;
          await this.reload();
          if (this.stale) {
            this.stale = false;
            this.emit('fresh');
          }
          if (first) {
            this.loaded = true;
            loaded();
          }
          first = false;
          delay = this.options.retryMs ?? 1000;
          for await (const event of watcher.events) {
            if (event.type === 'put') this.apply(event.item);
            else this.remove(this.nameOf(event.key), BigInt(event.revision));
          }
        } finally {
          watcher.close();
        }
        // The stream ends without an error only when the watcher or the backend was closed.
        return;
      } catch (error) {
        if (this.closed) return;
        if (first) return failed(error);
        if (!this.stale) {
          this.stale = true;
          this.emit('stale');
        }
        this.options.onError?.(error);
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          this.retryTimer = setTimeout(resolve, delay);
          this.retryTimer.unref();
        });
        this.wakeUp = null;
        delay = Math.min(delay * 2, 30_000);
      }
    }
  }

  /** A full list: entries that vanished meanwhile are deleted, the others put. */
  private async reload(): Promise<void> {
    const { items } = await this.backend.list({ prefix: this.options.prefix });
    const seen = new Set<string>();
    for (const item of items) {
      seen.add(this.nameOf(item.key));
      this.apply(item);
    }
    for (const name of [...this.entries.keys()]) {
      if (!seen.has(name)) this.remove(name, null);
    }
  }

  private apply(item: Item): void {
    const name = this.nameOf(item.key);
    const revision = BigInt(item.revision);
    const current = this.entries.get(name);
    if (current && current.revision >= revision) return;
    let value: T;
    try {
      value = this.options.parse(item);
    } catch (error) {
      this.options.onError?.(error);
      return;
    }
    this.entries.set(name, { value, revision });
    this.generation++;
    this.emit('put', name, value);
  }

  /** `revision` null: the item is gone for sure (a re-list did not return it). */
  private remove(name: string, revision: bigint | null): void {
    const current = this.entries.get(name);
    if (!current || (revision !== null && current.revision > revision)) return;
    this.entries.delete(name);
    this.generation++;
    this.emit('delete', name, current.value);
  }

  private nameOf(key: string): string {
    return key.slice(this.options.prefix.length);
  }
}
