import { EventQueue } from './event-queue.js';
import { assertValidPrefix, matchesAnyPrefix } from './keys.js';
import type { WatchEvent, Watcher } from './types.js';
import { WatchFailedError } from './types.js';

/** How many undelivered events a watcher may hold before it is failed as "fell behind". */
const MAX_BUFFERED_EVENTS = 10_000;

interface Subscription {
  prefixes: readonly string[];
  /** Deliver only revisions above this; null until the watcher knows where "now" is. */
  after: bigint | null;
  queue: EventQueue<WatchEvent>;
}

export function eventKey(event: WatchEvent): string {
  return event.type === 'put' ? event.item.key : event.key;
}

/**
 * Fans events out to the watchers of one backend instance. Producers must publish in
 * revision order; each watcher skips revisions at or below its starting point, so a watcher
 * registered while older events are still being delivered does not see them.
 */
export class WatchHub {
  private readonly subs = new Set<Subscription>();

  constructor(private readonly onCountChange: (count: number) => void = () => {}) {}

  get count(): number {
    return this.subs.size;
  }

  /** `start` is the revision "now": the watcher delivers only revisions above it. */
  add(prefixes: string[], start: bigint | Promise<bigint>): Watcher {
    if (!Array.isArray(prefixes) || prefixes.length === 0)
      throw new Error('watch needs at least one prefix');
    prefixes.forEach(assertValidPrefix);
    const sub: Subscription = {
      prefixes: [...prefixes],
      after: null,
      queue: new EventQueue(MAX_BUFFERED_EVENTS, () => close()),
    };
    // The consumer no longer wants events, so buffered ones are dropped too.
    const close = (): void => {
      sub.queue.end({ discardBuffered: true });
      if (this.subs.delete(sub)) this.onCountChange(this.subs.size);
    };
    this.subs.add(sub);
    this.onCountChange(this.subs.size);
    const ready = Promise.resolve(start).then(
      (revision) => {
        sub.after = revision;
      },
      (error: unknown) => {
        sub.queue.fail(error);
        close();
        throw error;
      },
    );
    // Callers that only iterate `events` still see the failure there; keep Node from
    // treating an unawaited `ready` as an unhandled rejection.
    ready.catch(() => {});
    return { ready, events: sub.queue, close };
  }

  publish(revision: bigint, event: WatchEvent): void {
    const key = eventKey(event);
    for (const sub of this.subs) {
      if (!sub.queue.isOpen) {
        // The queue failed on overflow: forget the watcher so it stops counting as active.
        this.subs.delete(sub);
        this.onCountChange(this.subs.size);
        continue;
      }
      if (sub.after === null || revision <= sub.after) continue;
      sub.after = revision;
      if (matchesAnyPrefix(key, sub.prefixes)) sub.queue.push(event);
    }
  }

  /** Ends every watcher with an error; they must re-list and watch again. */
  failAll(message: string): void {
    const error = new WatchFailedError(message);
    for (const sub of [...this.subs]) sub.queue.fail(error);
    this.subs.clear();
    this.onCountChange(0);
  }

  closeAll(): void {
    for (const sub of [...this.subs]) sub.queue.end();
    this.subs.clear();
    this.onCountChange(0);
  }
}
