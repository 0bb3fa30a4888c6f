import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryBackend } from '../../backend/memory.js';
import { WatchFailedError, type Watcher } from '../../backend/types.js';
import { LockWatcher, strictLockProblem } from './lock-watcher.js';

// `lock: strict`: while the lock view may be missing a lock (its watch failed and the locks
// have not been listed again), access is refused to users whose roles ask for strict locking.
const backends: MemoryBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

/** A memory backend whose current watcher can be made to fail, as a trimmed event log would. */
function failingBackend() {
  const backend = new MemoryBackend();
  backends.push(backend);
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

describe('lock: strict', () => {
  it('refuses while the lock view is stale, and only for strict roles', async () => {
    const { backend, failWatcher } = failingBackend();
    const locks = new LockWatcher(backend, Date.now, () => undefined);
    await locks.start();
    expect(locks.isStale()).toBe(false);
    expect(strictLockProblem(locks, 'strict')).toBeUndefined();
    failWatcher();
    await vi.waitFor(() => expect(locks.isStale()).toBe(true));
    expect(strictLockProblem(locks, 'strict')).toMatch(/^locked: .*lock: strict/);
    expect(strictLockProblem(locks, 'best_effort')).toBeUndefined();
    // Listed and watched again: fresh, and strict roles get in again.
    await vi.waitFor(() => expect(locks.isStale()).toBe(false), { timeout: 5_000 });
    expect(strictLockProblem(locks, 'strict')).toBeUndefined();
    await locks.close();
  });
});
