import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepCertificateRenewed } from './certificate-renewal.js';

const day = 24 * 3_600_000;
const year = 365 * day;

/** A renewal whose issues are numbered, and whose failures can be switched on. */
function renewal(ttlMs: number) {
  let issued = 0;
  let failing = false;
  const used: number[] = [];
  const failures: unknown[] = [];
  const stop = keepCertificateRenewed({
    ttlMs,
    issue: () =>
      failing ? Promise.reject(new Error('the CA is away')) : Promise.resolve(++issued),
    use: (n) => used.push(n),
    failed: (error) => failures.push(error),
  });
  return { used, failures, stop, fail: (on: boolean) => (failing = on) };
}

describe('keepCertificateRenewed', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('replaces a year-long certificate two thirds into its life, not before (timers over 24.8 days)', async () => {
    const { used, stop } = renewal(year);
    // setTimeout fires at once for a delay over 2^31 - 1 ms: the wait is made of shorter ones.
    await vi.advanceTimersByTimeAsync(243 * day);
    expect(used).toEqual([]);
    await vi.advanceTimersByTimeAsync(1 * day);
    expect(used).toEqual([1]);
    // And again two thirds into the new one's life.
    await vi.advanceTimersByTimeAsync(242 * day);
    expect(used).toEqual([1]);
    await vi.advanceTimersByTimeAsync(2 * day);
    expect(used).toEqual([1, 2]);
    stop();
  });

  it('keeps the current certificate through a failed renewal and tries again until one comes', async () => {
    const { used, failures, fail, stop } = renewal(60 * 60_000);
    fail(true);
    await vi.advanceTimersByTimeAsync(40 * 60_000);
    expect(failures).toHaveLength(1);
    expect(used).toEqual([]);
    // A minute later, again; then the CA is back.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(failures).toHaveLength(2);
    fail(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(used).toEqual([1]);
    expect(failures).toHaveLength(2);
    stop();
  });

  it('retries sooner than a minute when the certificate in use is about to end', async () => {
    const { failures, fail, stop } = renewal(60_000);
    fail(true);
    await vi.advanceTimersByTimeAsync(40_000);
    expect(failures).toHaveLength(1);
    // 20 s were left: the next try comes after a quarter of that, not after a minute.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(failures).toHaveLength(2);
    stop();
  });

  it('stops: no certificate is issued or used after stop()', async () => {
    const { used, stop } = renewal(60_000);
    stop();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(used).toEqual([]);
  });
});
