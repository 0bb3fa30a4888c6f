import type { WatchEvent, Watcher } from '../types.js';

/**
 * Reads a watcher's events with timeouts, without closing the watcher in between (a `break`
 * out of `for await` would close it). Keeps one pending `next()` across timeouts, since a
 * watcher stream has a single consumer.
 */
export class EventReader {
  private readonly iterator: AsyncIterator<WatchEvent>;
  private pending: Promise<IteratorResult<WatchEvent>> | null = null;

  constructor(watcher: Watcher) {
    this.iterator = watcher.events[Symbol.asyncIterator]();
  }

  /** The next `count` events; fails if they do not all arrive in time or the stream ends. */
  async take(count: number, timeoutMs = 5000): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    const deadline = Date.now() + timeoutMs;
    while (events.length < count) {
      const result = await this.next(deadline - Date.now());
      if (result === 'timeout') {
        throw new Error(
          `timed out with ${events.length} of ${count} events: ${JSON.stringify(events)}`,
        );
      }
      if (result.done) throw new Error(`stream ended after ${events.length} of ${count} events`);
      events.push(result.value);
    }
    return events;
  }

  /** Resolves to the next event, 'ended' or 'timeout' if nothing comes within `ms`. */
  async peek(ms: number): Promise<WatchEvent | 'ended' | 'timeout'> {
    const result = await this.next(ms);
    if (result === 'timeout') return 'timeout';
    return result.done ? 'ended' : result.value;
  }

  private async next(ms: number): Promise<IteratorResult<WatchEvent> | 'timeout'> {
    this.pending ??= this.iterator.next();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, ms));
    });
    try {
      const result = await Promise.race([this.pending, timeout]);
      if (result !== 'timeout') this.pending = null;
      return result;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A compact form of events for assertions: `put /a/1 @5`, `delete /a/1 @6`. */
export function describeEvents(events: WatchEvent[]): string[] {
  return events.map((event) =>
    event.type === 'put'
      ? `put ${event.item.key} @${event.item.revision}`
      : `delete ${event.key} @${event.revision}`,
  );
}

export function eventRevision(event: WatchEvent): bigint {
  return BigInt(event.type === 'put' ? event.item.revision : event.revision);
}
