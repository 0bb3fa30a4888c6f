import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MemoryBackend } from '../../backend/memory.js';
import { LockWatcher, strictLockProblem } from './lock-watcher.js';
import { failingBackend as failingBackendIn } from '../../backend/testing/failing-backend.testkit.js';

// `lock: strict`: while the lock view may be missing a lock (its watch failed and the locks
// have not been listed again), access is refused to users whose roles ask for strict locking.
const backends: MemoryBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

const failingBackend = () => failingBackendIn(backends);

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
