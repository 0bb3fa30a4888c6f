import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MemoryBackend } from '../../backend/memory.js';
import {
  LockWatcher,
  lockMessage,
  strictFenceHoldMs,
  strictFenceName,
  type LockingMode,
} from './lock-watcher.js';
import { failingBackend as failingBackendIn } from '../../backend/testing/failing-backend.testkit.js';

// `lock: strict`: while the lock view may be missing a lock (its watch failed and the locks
// have not been listed again), a user whose roles ask for strict locking counts as locked:
// `lockFor` reports a fence for them, so every check of every protocol refuses them.
const backends: MemoryBackend[] = [];
afterEach(async () => {
  for (const backend of backends.splice(0)) await backend.close();
});

const failingBackend = () => failingBackendIn(backends);
const modeByRole = (_user: string, roles: readonly string[]): LockingMode =>
  roles.includes('fenced') ? 'strict' : 'best_effort';

describe('lock: strict', () => {
  it('fences strict roles while the lock view is stale, and only them', async () => {
    const { backend, failWatcher } = failingBackend();
    let clock = Date.now(); // the watcher's: it moves only when this test moves it
    const locks = new LockWatcher(backend, () => clock, { lockingModeOf: modeByRole });
    await locks.start();
    const sam = { user: 'sam', roles: ['access', 'fenced'] };
    expect(locks.lockFor(sam)).toBeUndefined();
    failWatcher();
    await vi.waitFor(() => expect(locks.isStale()).toBe(true));

    const fence = locks.lockFor(sam);
    expect(fence?.metadata.name).toBe(strictFenceName);
    expect(fence?.spec.target).toEqual({ user: 'sam' });
    expect(`locked: ${lockMessage(fence!)}`).toMatch(
      /^locked: the lock list cannot be confirmed current right now .*\(lock: strict\)/,
    );
    expect(locks.isLocked(sam)).toBe(true);
    // best_effort users, and subjects that name no user (a node), go on with the last known locks.
    expect(locks.lockFor({ user: 'bob', roles: ['access'] })).toBeUndefined();
    expect(locks.lockFor({ node: 'web-1' })).toBeUndefined();
    // The fence is the view's own: it never shows among the cluster's locks.
    expect(locks.locks()).toEqual([]);

    // Listed and watched again at once: the fence still stands for its hold, so a session that
    // judges locks on a timer sees it too; after the hold, strict roles get in again.
    await vi.waitFor(() => expect(locks.isStale()).toBe(false), { timeout: 5_000 });
    expect(locks.lockFor(sam)?.metadata.name).toBe(strictFenceName);
    clock += strictFenceHoldMs;
    expect(locks.lockFor(sam)).toBeUndefined();
    await locks.close();
  });

  it('counts a failing look-up of the mode as best_effort, and reports it', async () => {
    const { backend, failWatcher } = failingBackend();
    const errors: unknown[] = [];
    const locks = new LockWatcher(backend, Date.now, {
      onError: (error) => errors.push(error),
      lockingModeOf: () => {
        throw new Error('roles unreadable');
      },
    });
    await locks.start();
    failWatcher();
    await vi.waitFor(() => expect(locks.isStale()).toBe(true));
    expect(locks.lockFor({ user: 'sam', roles: ['fenced'] })).toBeUndefined();
    expect(errors).toContainEqual(new Error('roles unreadable'));
    await locks.close();
  });

  it('without a mode look-up, nobody is fenced', async () => {
    const { backend, failWatcher } = failingBackend();
    const locks = new LockWatcher(backend, Date.now);
    await locks.start();
    failWatcher();
    await vi.waitFor(() => expect(locks.isStale()).toBe(true));
    expect(locks.lockFor({ user: 'sam', roles: ['fenced'] })).toBeUndefined();
    await locks.close();
  });
});
