import type { AuditStore } from './audit.types.js';

/** Rows removed per transaction: enough to keep up, few enough that emit never waits long. */
export const RETENTION_BATCH_SIZE = 10_000;
const RETENTION_INTERVAL_MS = 3_600_000;

/** Removes every event older than `retentionMs`, batch by batch; returns how many went. */
export async function applyAuditRetention(
  audit: AuditStore,
  retentionMs: number,
  now = Date.now(),
  batchSize = RETENTION_BATCH_SIZE,
): Promise<number> {
  const cutoff = new Date(now - retentionMs);
  let removed = 0;
  for (;;) {
    const batch = await audit.removeOlderThan(cutoff, batchSize);
    removed += batch;
    if (batch < batchSize) return removed;
    // Let queued emits and searches run between batches.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Applies retention now and then hourly. Returns a stop function that also waits for a run in
 * progress, so the store is not closed under it; with retention 0 (keep forever) it does nothing.
 */
export function startAuditRetention(
  audit: AuditStore,
  retentionMs: number,
  onRemoved: (removed: number) => void,
  onError: (error: unknown) => void,
): () => Promise<void> {
  if (retentionMs <= 0) return async () => {};
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= applyAuditRetention(audit, retentionMs)
      .then((removed) => (removed > 0 ? onRemoved(removed) : undefined), onError)
      .finally(() => (running = undefined));
  };
  run();
  const timer = setInterval(run, RETENTION_INTERVAL_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
