import { UserRateLimiter, type UserRateSettings } from '../user-rate-limiter.js';

export type OpenRateSettings = UserRateSettings;
export type OpenRateLimiter = UserRateLimiter;

/**
 * Opening a connection to a server costs the proxy a key, a certificate and an SSH handshake;
 * a user opening hundreds at once would take that CPU from everyone else's keystrokes.
 */
export const openRateLimiter = (settings: OpenRateSettings, now: () => number) =>
  new UserRateLimiter(
    settings,
    now,
    (waitS, { burst, perSecond }) =>
      `too many connections opened at once: try again in ${waitS} s (at most ${burst} at once, then ${perSecond} per second)`,
  );
