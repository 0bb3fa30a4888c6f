import type { ClientRequest, IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { upgradeFailure, UpgradeFailedError, type DialOptions } from './dial-options.js';

/** The largest message taken from the server: API servers send 32 KiB of data at most. */
const maxPayload = 1024 * 1024;

/**
 * Opens a WebSocket offering `protocols` (best first). A non-101 answer, or a 101 that picked
 * none of them, is an UpgradeFailedError (client-go's cue to fall back to SPDY); a network or
 * TLS failure is rejected as it is. The socket comes paused: resume it once listening.
 */
export function dialWebSocket<T extends string>(
  url: URL,
  protocols: readonly T[],
  options: DialOptions = {},
): Promise<{ socket: WebSocket; protocol: T }> {
  const target = new URL(url);
  target.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  let answered: string | undefined;
  return new Promise((resolve, reject) => {
    // The subprotocols go in a header of our own and the answer is read here, not by ws: ws
    // refuses `SPDY/3.1+portforward.k8s.io` (a slash is no token character), which
    // Kubernetes' port-forward tunnel offers.
    const socket = new WebSocket(target, {
      ...options.tls,
      ...(options.createConnection ? { createConnection: options.createConnection } : {}),
      headers: { ...options.headers, 'Sec-WebSocket-Protocol': protocols.join(', ') },
      perMessageDeflate: false,
      maxPayload,
      followRedirects: false,
      finishRequest: (request: ClientRequest) => {
        request.prependListener('upgrade', (response: IncomingMessage) => {
          answered = response.headers['sec-websocket-protocol'];
          delete response.headers['sec-websocket-protocol'];
        });
        request.end();
      },
    });
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      if (!error) return resolve({ socket, protocol: answered as T });
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      reject(error);
    };
    socket.once('open', () => {
      // Held until the caller has its listeners on: messages in the same packet as the 101
      // would otherwise be emitted (on nextTick) before a promise continuation runs.
      socket.pause();
      if ((protocols as readonly string[]).includes(answered ?? '')) return settle();
      settle(new UpgradeFailedError(101, `the server chose no offered subprotocol (${answered})`));
    });
    socket.once('unexpected-response', (req: ClientRequest, response: IncomingMessage) => {
      void upgradeFailure(response).then((error) => {
        req.destroy();
        settle(error);
      });
    });
    socket.on('error', (error: Error) => settle(error));
  });
}
