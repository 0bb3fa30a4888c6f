import type { WatchEvent, Watcher } from './types.js';
import { WatchHub } from './watch-hub.js';

export interface LoggedEvent {
  revision: bigint;
  event: WatchEvent;
}

/** Reads the event log that the SQL backends write in the same transaction as each change. */
export interface EventLogReader {
  /** Events with revision > `after`, in revision order, at most `limit`. */
  readAfter(after: bigint, limit: number): Promise<LoggedEvent[]>;
}

const BATCH = 1000;

/**
 * Delivers the event log to this instance's watchers, whoever wrote the events (this process
 * or another one). Everything goes through the log, in revision order, so local and remote
 * writes interleave correctly. Revisions are dense (one counter, incremented in the writing
 * transaction), so a hole after our cursor means the log was trimmed past us.
 */
export class EventFeed {
  readonly hub: WatchHub;
  /** Highest revision delivered; null while nobody watches (then we do not track the log). */
  private position: bigint | null = null;
  /** Bumped whenever tracking restarts, so a fetch started earlier cannot move the cursor. */
  private epoch = 0;
  private running: Promise<void> | null = null;
  private rerun = false;

  constructor(
    private readonly log: EventLogReader,
    onWatcherCountChange: (count: number) => void = () => {},
  ) {
    this.hub = new WatchHub((count) => {
      if (count === 0) {
        this.position = null;
        this.epoch++;
      }
      onWatcherCountChange(count);
    });
  }

  get watching(): boolean {
    return this.hub.count > 0;
  }

  /** `head` is the latest committed revision at (or after) the moment watch() was called. */
  watch(prefixes: string[], head: bigint | Promise<bigint>): Watcher {
    const start = Promise.resolve(head).then((revision) => {
      if (this.position === null) this.position = revision;
      return revision;
    });
    return this.hub.add(prefixes, start);
  }

  /** Delivers everything committed up to now; resolves once it is queued to watchers. */
  async catchUp(): Promise<void> {
    if (this.position === null) return;
    if (this.running) {
      // A fetch in flight may have started before our change committed: ask for another pass.
      this.rerun = true;
      return this.running;
    }
    this.running = this.pump().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Fire-and-forget variant for timers and notifications. */
  poke(): void {
    void this.catchUp();
  }

  private async pump(): Promise<void> {
    do {
      this.rerun = false;
      try {
        await this.fetchAll();
      } catch (error) {
        // Watchers can no longer be sure they see every change; tell them so they resync.
        this.hub.failAll(
          `watch failed reading the event log: ${error instanceof Error ? error.message : String(error)}`,
        );
        return;
      }
    } while (this.rerun);
  }

  private async fetchAll(): Promise<void> {
    const epoch = this.epoch;
    for (;;) {
      const from = this.position;
      if (from === null) return;
      const batch = await this.log.readAfter(from, BATCH);
      if (epoch !== this.epoch) return;
      const first = batch[0];
      if (first && first.revision !== from + 1n) {
        this.hub.failAll(
          `watch fell behind: the event log no longer holds revision ${from + 1n}; list again and re-watch`,
        );
        return;
      }
      for (const { revision, event } of batch) {
        // A watcher callback may have closed the last watcher, which stops tracking.
        if (epoch !== this.epoch) return;
        this.position = revision;
        this.hub.publish(revision, event);
      }
      if (batch.length < BATCH) return;
    }
  }
}
