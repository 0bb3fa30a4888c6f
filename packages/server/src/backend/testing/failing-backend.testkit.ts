import { MemoryBackend } from '../memory.js';
import { WatchFailedError, type Backend, type Watcher } from '../types.js';

/**
 * A memory backend whose current watcher can be made to fail, as a trimmed event log would
 * (what makes a WatchedCache list again), or which can be cut off for a while (an outage). The
 * backend goes into `track`, for the test to close.
 */
export function failingBackend(track: Backend[]) {
  const backend = new MemoryBackend();
  track.push(backend);
  let fail: (() => void) | null = null;
  /** Every watcher's failure, for an outage. */
  const failures = new Set<() => void>();
  const watch = backend.watch.bind(backend);
  backend.watch = (prefixes: string[]): Watcher => {
    const inner = watch(prefixes);
    let failed: (error: Error) => void = () => {};
    const failure = new Promise<never>((_, reject) => (failed = reject));
    failure.catch(() => {});
    fail = () => failed(new WatchFailedError('fell behind'));
    failures.add(fail);
    const iterator = inner.events[Symbol.asyncIterator]();
    return {
      ready: inner.ready,
      close: () => inner.close(),
      events: {
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.race([iterator.next(), failure]),
          return: async () => {
            inner.close();
            return { value: undefined, done: true };
          },
        }),
      },
    };
  };
  // An outage: lists fail until it ends, so the cache stays stale (it lists before it is fresh).
  let down = false;
  const list = backend.list.bind(backend);
  backend.list = (query) =>
    down ? Promise.reject(new Error('the database cannot be reached')) : list(query);
  return {
    backend,
    failWatcher: () => fail?.(),
    /** The storage goes away: every watch fails, and every list until `outageEnds`. */
    outage: () => {
      down = true;
      for (const failure of failures) failure();
    },
    outageEnds: () => {
      down = false;
    },
  };
}
