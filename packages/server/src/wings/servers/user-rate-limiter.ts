import { ApiError } from '../../errors.js';

export interface UserRateSettings {
  /** How many a user may take at once before the rate applies. */
  burst: number;
  /** How many more per second, sustained. */
  perSecond: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per user: `burst` at once, then `perSecond`, for work that is dear to do for
 * everyone (a server connection's key and handshake, a call to a paid language model), so one
 * user or a runaway script cannot take it from the rest. Refusals cost nothing but this check.
 * Per process, like the login limit: with several proxies a user gets the allowance at each.
 */
export class UserRateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly settings: UserRateSettings,
    private readonly now: () => number,
    /** The 429's message, given the seconds until the next one is allowed. */
    private readonly refusal: (waitS: number, settings: UserRateSettings) => string,
  ) {}

  /** Takes one for the user, or throws a 429 that says when to try again. */
  take(user: string): void {
    const now = this.now();
    const bucket = this.refilled(user, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.buckets.set(user, bucket);
      return;
    }
    const waitS = Math.ceil((1 - bucket.tokens) / this.settings.perSecond);
    throw new ApiError('limit_exceeded', this.refusal(waitS, this.settings));
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
