import { rawResponseHead } from '../../../net/raw-http.js';
import type { Duplex } from 'node:stream';
import { failureStatus, type Status } from './status.js';

/** Why an upgrade was refused: the answer already went out on the socket, which is closed. */
export class UpgradeRefusedError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'UpgradeRefusedError';
  }
}

/**
 * Answers an upgrade request with an error, as an API server does: a metav1.Status as JSON
 * (kubectl shows its message), then closes the socket. Returns the error to reject with.
 */
export function refuseUpgrade(
  socket: Duplex,
  code: number,
  message: string,
  extraHeaders: Record<string, string | string[]> = {},
): UpgradeRefusedError {
  const status: Status = failureStatus(message, reasonOf(code), code);
  const body = JSON.stringify(status);
  if (!socket.destroyed && socket.writable) {
    const head = rawResponseHead(code, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
      ...extraHeaders,
    });
    socket.end(head + body, () => socket.destroy());
  }
  return new UpgradeRefusedError(code, message);
}

function reasonOf(code: number): string {
  switch (code) {
    case 400:
      return 'BadRequest';
    case 401:
      return 'Unauthorized';
    case 403:
      return 'Forbidden';
    case 404:
      return 'NotFound';
    case 405:
      return 'MethodNotAllowed';
    default:
      return 'InternalError';
  }
}
