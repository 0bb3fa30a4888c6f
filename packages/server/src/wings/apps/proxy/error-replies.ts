import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { rawResponseHead } from '../../../net/raw-http.js';

export type ErrorStatus = 400 | 403 | 502 | 504;

/**
 * What the browser reads when the proxy answers for the app: short, and naming no upstream
 * address or error, which would tell a visitor about the internal network.
 */
const texts: Record<ErrorStatus, string> = {
  400: 'Bad request.\n',
  403: 'Forbidden.\n',
  502: 'Bad gateway: the application did not answer.\n',
  504: 'Gateway timeout: the application did not answer in time.\n',
};

/** Status the audit records for a request whose client left before the app answered (as nginx). */
export const clientClosedRequest = 499;

export class UpstreamTimeoutError extends Error {
  constructor() {
    super('the upstream did not answer in time');
    this.name = 'UpstreamTimeoutError';
  }
}

/**
 * The way to the app refused this visitor, for a reason that is theirs to read: a trusted leaf's
 * access decision on the root's app session (its role map or a lock changed since the launch).
 */
export class UpstreamRefusal extends Error {
  override name = 'UpstreamRefusal';
  constructor(readonly reason: string) {
    super(reason);
  }
}

export function statusOfFailure(error: unknown): ErrorStatus {
  if (error instanceof UpstreamRefusal) return 403;
  return error instanceof UpstreamTimeoutError ? 504 : 502;
}

/** The page's text: the status's own, or a refusal's reason. */
function textOf(status: ErrorStatus, cause?: unknown): string {
  return status === 403 && cause instanceof UpstreamRefusal
    ? `Forbidden: ${cause.reason}\n`
    : texts[status];
}

function errorHeaders(text: string, close: boolean): Record<string, string> {
  return {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    ...(close ? { connection: 'close' } : {}),
  };
}

/**
 * Answers on the response. `close` ends the client connection after it: needed when the request
 * body was not read to its end (or its framing is not to be trusted).
 */
export function replyError(
  res: ServerResponse,
  status: ErrorStatus,
  close: boolean,
  cause?: unknown,
): void {
  if (res.headersSent || res.destroyed) return;
  const text = textOf(status, cause);
  res.writeHead(status, errorHeaders(text, close));
  res.end(text);
}

/** The same answer written raw on a socket taken over for an upgrade, which is then closed. */
export function replyErrorRaw(socket: Duplex, status: ErrorStatus, cause?: unknown): void {
  if (socket.destroyed) return;
  const text = textOf(status, cause);
  const head = rawResponseHead(status, errorHeaders(text, true));
  socket.end(head + text, () => socket.destroy());
}
