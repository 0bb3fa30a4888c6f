import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { createWebSocketStream } from 'ws';
import { acceptSpdyUpgrade } from '../httpstream/accept-spdy.js';
import { acceptWebSocket } from '../httpstream/accept-websocket.js';
import { isWebSocketUpgrade } from '../httpstream/negotiate.js';
import { refuseUpgrade } from '../httpstream/raw-response.js';
import { SpdyConnection } from '../spdy/spdy-connection.js';
import type { SpdyStream } from '../spdy/spdy-stream.js';
import { portForwardProtocolV1, tunnelProtocolV1 } from './protocol.js';
import { StreamPairs, type ForwardedConnection } from './stream-pairs.js';

export interface AcceptPortForwardOptions {
  /** Take kubectl's SPDY-in-WebSocket tunnel (default). False answers it 400, so kubectl falls back. */
  websocket?: boolean;
  /** How long one stream of a pair waits for the other (default 30 s, the kubelet's). */
  pairTimeoutMs?: number;
}

export interface PortForwardServerSession {
  readonly transport: 'websocket' | 'spdy';
  /** Each forwarded connection, once its two streams are there. */
  onForward(handler: (connection: ForwardedConnection) => void): void;
  /** Resolves when the client is gone. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Takes a port-forward upgrade (the `upgrade` event's request, socket and head): SPDY/3.1
 * negotiating portforward.k8s.io, or the WebSocket tunnel `SPDY/3.1+portforward.k8s.io` that
 * carries the same SPDY inside binary messages. Refusals are answered with a Status and
 * rejected with UpgradeRefusedError.
 */
export async function acceptPortForward(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: AcceptPortForwardOptions = {},
): Promise<PortForwardServerSession> {
  socket.on('error', () => socket.destroy());
  if (isWebSocketUpgrade(req)) {
    if (options.websocket === false) {
      throw refuseUpgrade(socket, 400, 'WebSocket upgrades are not served here');
    }
    const accepted = await acceptWebSocket(req, socket, head, [tunnelProtocolV1]);
    const tunnel = createWebSocketStream(accepted.socket);
    const connection = new SpdyConnection(tunnel, { role: 'server' });
    return serve(connection, 'websocket', options.pairTimeoutMs);
  }
  const { connection } = acceptSpdyUpgrade(req, socket, head, [portForwardProtocolV1]);
  return serve(connection, 'spdy', options.pairTimeoutMs);
}

function serve(
  connection: SpdyConnection,
  transport: 'websocket' | 'spdy',
  pairTimeoutMs = 30_000,
): PortForwardServerSession {
  const handlers: ((connection: ForwardedConnection) => void)[] = [];
  const waiting: ForwardedConnection[] = [];
  const pairs = new StreamPairs((pair) => {
    if (handlers.length === 0) waiting.push(pair);
    for (const handler of handlers) handler(pair);
  }, pairTimeoutMs);
  connection.on('stream', (stream: SpdyStream) => pairs.add(stream));
  const closed = connection.closed.then(() => pairs.close());
  return {
    transport,
    onForward: (handler) => {
      handlers.push(handler);
      for (const pair of waiting.splice(0)) handler(pair);
    },
    closed,
    close: () => connection.close(),
  };
}
