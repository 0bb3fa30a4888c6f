import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Storage that is locked by another process or unreachable for longer than a request may wait.
 * Its code is in the error catalogue (503), so the error handler answers with this message and
 * never with the driver's own text.
 */
export class StorageBusyError extends Error {
  readonly code = 'storage_busy';
  constructor() {
    super('storage busy, try again in a moment');
    this.name = 'StorageBusyError';
  }
}

/** SQLite's "another connection holds the lock" results (better-sqlite3 sets them as `code`). */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(code);
}

export interface BusyRetryOptions {
  /** How long to keep trying before giving up with StorageBusyError. */
  deadlineMs: number;
  /** First pause between tries; it doubles up to `maxDelayMs`. */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

export const defaultBusyRetry: BusyRetryOptions = {
  deadlineMs: 3000,
  firstDelayMs: 5,
  maxDelayMs: 200,
};

/**
 * Runs a SQLite operation, retrying while the file is locked elsewhere. The wait between tries is
 * a timer, not SQLite's busy timeout: better-sqlite3 waits synchronously, which would stop the
 * whole event loop (pings, open terminals) for as long as the lock lasts. A try that failed busy
 * changed nothing, so trying again is safe.
 */
export async function retryWhileBusy<T>(
  operation: () => T | Promise<T>,
  options: BusyRetryOptions = defaultBusyRetry,
): Promise<T> {
  const giveUpAt = Date.now() + options.deadlineMs;
  let delay = options.firstDelayMs ?? 5;
  for (;;) {
    try {
      return await operation();
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      const left = giveUpAt - Date.now();
      if (left <= 0) throw new StorageBusyError();
      await sleep(Math.min(delay, left));
      delay = Math.min(delay * 2, options.maxDelayMs ?? 200);
    }
  }
}
