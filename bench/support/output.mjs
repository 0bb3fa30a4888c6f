// What a benchmark terminal client "processes": decoded output text, scanned for markers (a
// prompt, an echoed key). Both the proxy client and the `ssh` baseline feed one of these, so the
// two paths do the same work per byte on the bench's side.
import { performance } from 'node:perf_hooks';

const keep = 4096;

export class OutputWatch {
  bytes = 0;
  /** The last few KiB of text, for error messages and first-prompt checks. */
  tail = '';
  #waiters = new Set();
  #closed;

  /** Output text and the payload bytes it came from. */
  feed(text, bytes) {
    const at = performance.now();
    this.bytes += bytes;
    this.tail = text.length >= keep ? text.slice(-keep) : (this.tail + text).slice(-keep);
    for (const waiter of this.#waiters) {
      // A waiter sees only what arrived after it was made, plus enough of the previous chunk
      // for a marker split across two chunks.
      const window = waiter.seen + text;
      if (waiter.test(window)) {
        this.#settle(waiter);
        waiter.resolve(at);
      } else {
        waiter.seen = window.length > waiter.overlap ? window.slice(-waiter.overlap) : window;
      }
    }
  }

  /**
   * Resolves with the performance.now() at which output arriving from now on first contains
   * `marker` (a string, or a RegExp tested on the recent text).
   */
  waitFor(marker, { timeoutMs = 30_000, what = String(marker) } = {}) {
    return new Promise((resolve, reject) => {
      if (this.#closed) return reject(new Error(`${this.#closed} while waiting for ${what}`));
      const test = typeof marker === 'string' ? (s) => s.includes(marker) : (s) => marker.test(s);
      const overlap = typeof marker === 'string' ? Math.max(0, marker.length - 1) : keep;
      const waiter = { test, overlap, seen: '', resolve, reject, what, timer: undefined };
      waiter.timer = setTimeout(() => {
        this.#settle(waiter);
        const tail = JSON.stringify(this.tail.slice(-300));
        reject(
          new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last output: ${tail}`),
        );
      }, timeoutMs);
      this.#waiters.add(waiter);
    });
  }

  /** The connection is gone: every pending wait fails with `reason`. */
  close(reason) {
    this.#closed ??= reason;
    for (const waiter of [...this.#waiters]) {
      this.#settle(waiter);
      waiter.reject(new Error(`${reason} while waiting for ${waiter.what}`));
    }
  }

  #settle(waiter) {
    this.#waiters.delete(waiter);
    clearTimeout(waiter.timer);
  }
}
