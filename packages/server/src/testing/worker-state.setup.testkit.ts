import { afterAll, vi } from 'vitest';

/**
 * Server test files share their worker's modules (isolate: false, vitest.config.ts), so what one
 * file leaves process-wide would reach the next. After each file: spies and fake timers are
 * undone, and an exit code a CLI command set (`postern ssh` sets ssh's) is cleared.
 */
afterAll(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  process.exitCode = undefined;
});
