import { describe, expect, it, vi } from 'vitest';
import type { AuditStore } from './audit.types.js';
import { startAuditRetention } from './retention.js';

/** A store whose removals the test releases by hand. */
function slowStore() {
  let release: (removed: number) => void = () => {};
  const removeOlderThan = vi.fn(() => new Promise<number>((resolve) => (release = resolve)));
  return {
    store: { removeOlderThan } as unknown as AuditStore,
    removeOlderThan,
    release: (n: number) => release(n),
  };
}

describe('startAuditRetention', () => {
  it('does nothing when retention is 0', async () => {
    const { store, removeOlderThan } = slowStore();
    await startAuditRetention(store, 0, vi.fn(), vi.fn())();
    expect(removeOlderThan).not.toHaveBeenCalled();
  });

  it('runs at once, reports what it removed, and stop waits for the run in progress', async () => {
    const { store, removeOlderThan, release } = slowStore();
    const onRemoved = vi.fn();
    const stop = startAuditRetention(store, 86_400_000, onRemoved, vi.fn());
    expect(removeOlderThan).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release(3);
    await stopping;
    expect(onRemoved).toHaveBeenCalledWith(3);
  });
});
