import type { CastEvent } from '@postern/contracts';

/**
 * The events fetched but not played yet, in time order. Times are kept in milliseconds; the
 * buffer also knows how much it holds, so the engine can tell when to fetch the next chunk.
 */
export class EventBuffer {
  private events: CastEvent[] = [];
  private head = 0;
  private chars = 0;

  append(events: readonly CastEvent[]): void {
    this.events = this.events.slice(this.head).concat(events);
    this.head = 0;
    for (const [, , data] of events) this.chars += data.length;
  }

  clear(): void {
    this.events = [];
    this.head = 0;
    this.chars = 0;
  }

  get isEmpty(): boolean {
    return this.head >= this.events.length;
  }

  /** When the next event is due, or undefined when none is buffered. */
  nextAtMs(): number | undefined {
    const event = this.events[this.head];
    return event ? event[0] * 1000 : undefined;
  }

  lastAtMs(): number | undefined {
    const event = this.events.at(-1);
    return event && !this.isEmpty ? event[0] * 1000 : undefined;
  }

  /** Characters of event data buffered (close to bytes for terminal output). */
  get size(): number {
    return this.chars;
  }

  /** Removes and returns the events due at or before `ms`. */
  takeUntil(ms: number): CastEvent[] {
    const start = this.head;
    while (this.head < this.events.length && this.events[this.head]![0] * 1000 <= ms) {
      this.chars -= this.events[this.head]![2].length;
      this.head++;
    }
    return this.events.slice(start, this.head);
  }
}
