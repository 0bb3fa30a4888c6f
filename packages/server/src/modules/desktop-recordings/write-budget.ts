/**
 * How many bytes a recording may write, as a token bucket: `bytesPerSecond` on average, with
 * `burstBytes` saved up at most. A write spends what it wrote (a write's size is known only
 * once it is compressed, so the bucket may go below zero); the next waits until it is back at
 * zero. Over any minute a recording then writes at most `burstBytes + 60 × bytesPerSecond` and
 * one write more, whatever the screen does: a full-screen animation is recorded at fewer frames
 * per second, never at more bytes.
 */
export class WriteBudget {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly bytesPerSecond: number,
    private readonly burstBytes: number,
    now: number,
  ) {
    this.tokens = burstBytes;
    this.refilledAt = now;
  }

  spend(bytes: number, now: number): void {
    this.refill(now);
    this.tokens -= bytes;
  }

  /** The earliest time the next write may start. */
  readyAt(now: number): number {
    this.refill(now);
    return this.tokens >= 0 ? now : now + (-this.tokens / this.bytesPerSecond) * 1000;
  }

  private refill(now: number): void {
    const elapsed = Math.max(0, now - this.refilledAt);
    this.tokens = Math.min(this.burstBytes, this.tokens + (elapsed * this.bytesPerSecond) / 1000);
    this.refilledAt = now;
  }
}
