/**
 * Delays between reconnection attempts: doubling from `initialMs` up to `maxMs`, each drawn at
 * random from the upper half of its step ("equal jitter"). The jitter keeps a fleet of agents
 * that lost the same proxy from all coming back in the same instant.
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs = 500,
    private readonly maxMs = 30_000,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt; each call counts one more failure. */
  next(): number {
    const step = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    // Stop growing the exponent once capped, so it never overflows to Infinity.
    if (step < this.maxMs) this.attempt += 1;
    return Math.round(step / 2 + (step / 2) * this.random());
  }

  /** After a connection that worked: the next failure starts from the shortest delay again. */
  reset(): void {
    this.attempt = 0;
  }
}
