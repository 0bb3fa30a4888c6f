import { MemoryBackend } from '../memory.js';
import { WatchFailedError, type Backend, type Watcher } from '../types.js';

/**
 * A memory backend whose current watcher can be made to fail, as a trimmed event log would
 * (what makes a WatchedCache list again). The backend goes into `track`, for the test to close.
 */
export function failingBackend(track: Backend[]) {
  const backend = new MemoryBackend();
  track.push(backend);
  let fail: (() => void) | null = null;
  const watch = backend.watch.bind(backend);
  backend.watch = (prefixes: string[]): Watcher => {
    const inner = watch(prefixes);
    let failed: (error: Error) => void = () => {};
    const failure = new Promise<never>((_, reject) => (failed = reject));
    failure.catch(() => {});
    fail = () => failed(new WatchFailedError('fell behind'));
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
  return { backend, failWatcher: () => fail?.() };
}
