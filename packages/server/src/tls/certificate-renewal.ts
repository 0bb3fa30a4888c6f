/**
 * How long a listener's own certificate (Kubernetes, PostgreSQL) is valid by default: a year,
 * with a new one put to use after eight months (keepCertificateRenewed).
 */
export const listenerCertTtlMs = 365 * 24 * 3_600_000;

export interface CertificateRenewalOptions<Issued> {
  /** How long each certificate `issue` makes is valid. */
  ttlMs: number;
  /** Makes a new certificate valid for `ttlMs` from now. */
  issue: () => Promise<Issued>;
  /** Puts a new certificate to use (new connections get it; open ones keep theirs). */
  use: (issued: Issued) => void;
  /** Told when a renewal failed; the current certificate serves on and it is tried again. */
  failed?: (error: unknown) => void;
  /** How long after a failure the next try comes (default a minute, or sooner near the end). */
  retryMs?: number;
}

/** Node's timers take at most 2^31 - 1 ms (about 24.8 days); a longer one fires at once. */
const longestTimerMs = 2 ** 31 - 1;

/**
 * Keeps a listener's own certificate fresh in a process that runs for longer than it is valid:
 * the certificate in use was issued just before this is called, and a new one is issued and
 * put to use once two thirds of its life have passed, again and again. A failed renewal is
 * retried (the old certificate still serves until it expires). Timers are unref'd: renewal never
 * keeps a process up. Returns the function that stops it.
 */
export function keepCertificateRenewed<Issued>(
  options: CertificateRenewalOptions<Issued>,
): () => void {
  const retryMs = options.retryMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const after = (delayMs: number, action: () => void) => {
    const dueAt = Date.now() + delayMs;
    const wait = () => {
      const left = dueAt - Date.now();
      if (left <= 0) return action();
      timer = setTimeout(wait, Math.min(left, longestTimerMs));
      timer.unref();
    };
    wait();
  };

  const renewIn = (delayMs: number, expiresAt: number) =>
    after(delayMs, () => {
      options.issue().then(
        (issued) => {
          if (stopped) return;
          options.use(issued);
          renewIn(renewalDelay(options.ttlMs), Date.now() + options.ttlMs);
        },
        (error: unknown) => {
          if (stopped) return;
          options.failed?.(error);
          // Tried again in a minute, and well before the certificate in use expires.
          const left = expiresAt - Date.now();
          renewIn(Math.max(1, Math.min(retryMs, left / 4)), expiresAt);
        },
      );
    });

  renewIn(renewalDelay(options.ttlMs), Date.now() + options.ttlMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** When a certificate valid for `ttlMs` is replaced: after two thirds of its life. */
function renewalDelay(ttlMs: number): number {
  return Math.floor((ttlMs * 2) / 3);
}
