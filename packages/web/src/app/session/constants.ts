/** Session constants of spec §9 (and the reference notes §1.2), in milliseconds. */
export const sessionTiming = {
  /** Renew the bearer when less than this much of its life remains. */
  renewWhenRemainingBelowMs: 180_000,
  /** How often the checker looks at the token (renewal or status poll). */
  checkIntervalMs: 15_000,
  /** The status poll runs only when the token has more than this left. */
  statusPollMinRemainingMs: 30_000,
  /** How often idle time is checked, and the margin taken off the inactivity timeout. */
  inactivityCheckIntervalMs: 30_000,
  inactivityMarginMs: 30_000,
  /** Activity is written to storage at most this often (per tab). */
  activityThrottleMs: 15_000,
  /**
   * How long another tab's "renewing" broadcast holds this tab back. The other tab announces the
   * end of its renewal (and stores the new token); this only covers a tab that died mid-renewal.
   */
  otherTabRenewalGraceMs: 30_000,
  /**
   * When the server turns this tab's token down (status poll, renewal), how long to wait for a
   * token another tab may be storing right then (its own renewal, or a page load that got a
   * fresh bearer) before logging out.
   */
  otherTabTokenSettleMs: 1_000,
  /** How long logout waits for `DELETE sessions/web` before leaving anyway. */
  logoutRequestTimeoutMs: 5_000,
} as const;

export type SessionTiming = { readonly [K in keyof typeof sessionTiming]: number };
