import type { Clock } from '../../clock.js';
import { parseCertificate, type ParsedCertificate } from '../../ssh/certificates.js';
import { ED25519, formatPublicKey } from '../../ssh/keys.js';

export interface HostCertificateRequest {
  nodeId: string;
  /** OpenSSH line of the agent's host key (the one its current certificate names). */
  publicKey: string;
  principals: string[];
}

export interface CertificateWatchOptions {
  nodeId: string;
  now: Clock;
  /** Signs a fresh certificate; without it the agent is only ever dropped at expiry. */
  renew?: (request: HostCertificateRequest) => string;
  onRenewed(hostCertificate: string): void;
  onRenewFailed(error: unknown): void;
  /** The certificate ended and none replaced it: the agent is no longer proven. */
  onExpired(): void;
}

/** setTimeout cannot wait longer than this (about 24.8 days). */
const maxTimerMs = 2 ** 31 - 1;
const renewRetryMs = 60_000;

/**
 * A connected agent is trusted as long as the certificate it proved itself with. When we can
 * sign, it gets a fresh one once half of the current one's life is gone, so an agent that runs
 * for months never falls off; otherwise, or if renewing keeps failing, it is dropped at expiry.
 * Returns a function that stops watching.
 */
export function watchHostCertificate(
  first: ParsedCertificate,
  options: CertificateWatchOptions,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  const at = (dueAt: number, then: () => void) => {
    const waitMs = Math.max(dueAt - options.now(), 0);
    // Past the longest timer, look again then.
    timer =
      waitMs > maxTimerMs
        ? setTimeout(() => at(dueAt, then), maxTimerMs)
        : setTimeout(then, waitMs);
  };

  const watch = (cert: ParsedCertificate) => {
    const start = cert.validAfter.getTime();
    const end = cert.validBefore.getTime();
    if (!options.renew) return at(end, options.onExpired);
    at(start + (end - start) / 2, () => renew(cert));
  };

  const renew = (cert: ParsedCertificate) => {
    let line: string;
    let renewed: ParsedCertificate;
    try {
      line = options.renew!({
        nodeId: options.nodeId,
        publicKey: formatPublicKey(ED25519, cert.publicKeyBlob),
        principals: cert.principals,
      });
      renewed = parseCertificate(line);
    } catch (error) {
      options.onRenewFailed(error);
      if (options.now() >= cert.validBefore.getTime()) return options.onExpired();
      // Try again soon, and once more at the very end before giving up.
      return at(Math.min(options.now() + renewRetryMs, cert.validBefore.getTime()), () =>
        renew(cert),
      );
    }
    options.onRenewed(line);
    watch(renewed);
  };

  watch(first);
  return () => clearTimeout(timer);
}
