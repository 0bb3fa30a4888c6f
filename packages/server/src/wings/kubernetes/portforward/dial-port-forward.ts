import { createWebSocketStream } from 'ws';
import { dialSpdy } from '../httpstream/dial-spdy.js';
import { dialWebSocket } from '../httpstream/dial-websocket.js';
import { UpgradeFailedError, type DialOptions } from '../httpstream/dial-options.js';
import { SpdyConnection } from '../spdy/spdy-connection.js';
import type { SpdyStream } from '../spdy/spdy-stream.js';
import { portForwardProtocolV1, portStreamType, tunnelProtocolV1 } from './protocol.js';

export interface DialPortForwardOptions extends DialOptions {
  /** Transports to try in order (default the WebSocket tunnel, then SPDY, as kubectl 1.31+). */
  transports?: ('websocket' | 'spdy')[];
}

export interface PortForwardClient {
  readonly transport: 'websocket' | 'spdy';
  /**
   * Opens one forwarded connection to `port` in the pod: the data stream, and what the server
   * wrote on the error stream (empty when forwarding went well) once it ended it.
   */
  forward(port: number): Promise<{ data: SpdyStream; error: Promise<string> }>;
  readonly closed: Promise<Error | undefined>;
  close(): Promise<void>;
}

/**
 * The client side of port-forward at `url` (…/pods/{name}/portforward), as kubectl does it:
 * the WebSocket tunnel first, SPDY when the server refuses the upgrade itself.
 */
export async function dialPortForward(
  url: URL | string,
  options: DialPortForwardOptions = {},
): Promise<PortForwardClient> {
  let refusal: Error = new Error('no transport to try');
  for (const transport of options.transports ?? ['websocket', 'spdy']) {
    try {
      if (transport === 'websocket') {
        const { socket } = await dialWebSocket(new URL(url), [tunnelProtocolV1], options);
        const tunnel = createWebSocketStream(socket);
        return client(new SpdyConnection(tunnel, { role: 'client' }), transport);
      }
      const { connection } = await dialSpdy(new URL(url), [portForwardProtocolV1], options);
      return client(connection, transport);
    } catch (error) {
      if (!(error instanceof UpgradeFailedError)) throw error;
      refusal = error;
    }
  }
  throw refusal;
}

function client(connection: SpdyConnection, transport: 'websocket' | 'spdy'): PortForwardClient {
  let nextRequestId = 0;
  return {
    transport,
    forward: async (port) => {
      const requestId = String(nextRequestId++);
      const headers = { port: String(port), requestID: requestId };
      // As client-go: the error stream first, half-closed at once (only the server writes there).
      const errorStream = await connection.openStream({
        ...headers,
        streamType: portStreamType.error,
      });
      errorStream.end();
      const error = new Promise<string>((resolve) => {
        const chunks: Buffer[] = [];
        errorStream.on('data', (chunk: Buffer) => chunks.push(chunk));
        errorStream.once('end', () => resolve(Buffer.concat(chunks).toString()));
        errorStream.once('close', () => resolve(Buffer.concat(chunks).toString()));
      });
      const data = await connection.openStream({ ...headers, streamType: portStreamType.data });
      return { data, error };
    },
    closed: connection.closed,
    close: () => connection.close(),
  };
}
