import { TargetRefusedError } from './url-guard.js';

/**
 * A delivery that failed for a reason worth showing: the receiver's status code, a refused
 * connection. Its message is what the status, the audit event and the Send test message answer
 * carry, so it never holds a secret (a chat webhook's URL, a password) or our internals.
 * `permanent`: trying again cannot help (a refused target, a 404), so the queue does not retry.
 */
export class DeliveryError extends Error {
  override name = 'DeliveryError';

  constructor(
    message: string,
    readonly permanent = false,
  ) {
    super(message);
  }
}

const errnoText: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the receiver',
  EPIPE: 'connection closed by the receiver',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed for now',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  // nodemailer's own codes
  ESOCKET: 'connection to the SMTP server failed',
  ECONNECTION: 'connection to the SMTP server failed',
  EDNS: 'host name not found',
  ETLS: 'TLS failed',
  EENVELOPE: 'the SMTP server refused the envelope',
};

/**
 * One short sentence for any failure. Unknown errors become a generic phrase rather than their
 * message, which may hold paths, stack details or a URL with its token.
 */
export function describeFailure(error: unknown): string {
  if (error instanceof DeliveryError) return error.message;
  if (error instanceof TargetRefusedError) return `refused: ${error.message}`;
  const { code, responseCode } = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  if (typeof responseCode === 'number') return `SMTP server answered ${responseCode}`;
  if (code === 'EAUTH') return 'SMTP authentication failed';
  if (typeof code === 'string') {
    if (errnoText[code]) return errnoText[code];
    if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/.test(code)) {
      return `TLS failed (${code})`;
    }
  }
  return 'delivery failed';
}

/** Whether a retry could help. */
export const isPermanent = (error: unknown) =>
  error instanceof TargetRefusedError || (error instanceof DeliveryError && error.permanent);
