import { ApiError } from '../../../errors.js';

export interface OpenRateSettings {
  /** How many connections a user may open at once before the rate applies. */
  burst: number;
  /** How many more per second, sustained. */
  perSecond: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Opening a connection to a server costs the proxy a key, a certificate and an SSH handshake;
 * a user (or a runaway script) opening hundreds at once would take that CPU from everyone
 * else's keystrokes. Each user gets a token bucket: `burst` at once, then `perSecond`. Refused
 * opens cost nothing but this check. Per process, like the login limit: with several proxies a
 * user gets the allowance at each.
 */
export class OpenRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly settings: OpenRateSettings,
    private readonly now: () => number,
  ) {}

  /** Takes one open for the user, or throws a 429 that says when to try again. */
  take(user: string): void {
    const now = this.now();
    const bucket = this.refilled(user, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.buckets.set(user, bucket);
      return;
    }
    const waitS = Math.ceil((1 - bucket.tokens) / this.settings.perSecond);
    throw new ApiError(
      'limit_exceeded',
      `too many connections opened at once: try again in ${waitS} s (at most ${this.settings.burst} at once, then ${this.settings.perSecond} per second)`,
    );
  }

  private refilled(user: string, now: number): Bucket {
    const { burst, perSecond } = this.settings;
    const bucket = this.buckets.get(user) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
    bucket.at = now;
    // A full bucket is the same as none: forget it, so idle users hold no memory.
    if (bucket.tokens >= burst) this.buckets.delete(user);
    else this.buckets.set(user, bucket);
    return bucket;
  }
}
