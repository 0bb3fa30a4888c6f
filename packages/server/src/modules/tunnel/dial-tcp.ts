import { connect } from 'node:net';
import type { Duplex } from 'node:stream';

/** How long a TCP connection may take to open before the dial gives up. */
const connectTimeoutMs = 10_000;

/**
 * A TCP connection to `host:port`, once it is established, with Nagle's wait off: the protocols
 * relayed this way (SQL, RFB) are small request-and-answer exchanges that it would slow down.
 * Rejects with the system's reason (ECONNREFUSED…) or after `timeoutMs`.
 */
export function dialTcp(
  address: { host: string; port: number },
  timeoutMs = connectTimeoutMs,
): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address.host, port: address.port });
    socket.setNoDelay(true);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no answer from ${address.host}:${address.port} within ${timeoutMs / 1000} s`),
      );
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
    const onError = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    socket.once('error', onError);
  });
}
