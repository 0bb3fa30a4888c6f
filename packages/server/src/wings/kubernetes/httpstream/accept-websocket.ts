import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { closeOnProtocolError } from '../../../websocket/protocol-errors.js';
import { headerList, isWebSocketUpgrade, pickProtocol } from './negotiate.js';
import { refuseUpgrade, UpgradeRefusedError } from './raw-response.js';

/** The largest message taken: kubectl sends at most 32 KiB of data per message. */
const maxPayload = 1024 * 1024;

/** The subprotocol chosen for each request being upgraded, for the 101 to name. */
const chosen = new WeakMap<IncomingMessage, string>();

// One handshake engine for every upgrade; `noServer` leaves the listening to the caller.
const engine = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload });
// The subprotocol is negotiated here, not by ws: kubectl's port-forward tunnel offers
// `SPDY/3.1+portforward.k8s.io`, whose slash ws refuses as a token (RFC 6455 wants one; Go
// takes it). So ws never sees the request's list, and the 101 gets the choice from here.
engine.on('headers', (headers: string[], req: IncomingMessage) => {
  const protocol = chosen.get(req);
  if (protocol) headers.push(`Sec-WebSocket-Protocol: ${protocol}`);
});

/**
 * Takes a WebSocket upgrade whose subprotocol is one of `supported`, picking the client's first
 * choice among them. A client offering none of them is refused with a 400 Status before any
 * handshake (Kubernetes' own would fall back to a protocol we do not speak). The socket comes
 * paused: resume it once listening.
 */
export function acceptWebSocket<T extends string>(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  supported: readonly T[],
): Promise<{ socket: WebSocket; protocol: T }> {
  if (!isWebSocketUpgrade(req)) {
    return Promise.reject(refuseUpgrade(socket, 400, 'unable to upgrade: not a WebSocket request'));
  }
  const offered = headerList(req, 'sec-websocket-protocol');
  const protocol = pickProtocol(offered, supported);
  if (!protocol) {
    const message = `unable to upgrade: the offered subprotocols (${offered.join(', ') || 'none'}) include none of ${supported.join(', ')}`;
    return Promise.reject(refuseUpgrade(socket, 400, message));
  }
  chosen.set(req, protocol);
  delete req.headers['sec-websocket-protocol'];
  return new Promise((resolve, reject) => {
    // ws answers a malformed handshake itself (400) and never calls back: the close says so.
    const gone = () => reject(new UpgradeRefusedError(400, 'the WebSocket handshake failed'));
    socket.once('close', gone);
    engine.handleUpgrade(req, socket, head, (accepted) => {
      socket.off('close', gone);
      closeOnProtocolError(accepted);
      // Held until the caller listens: what the client sent with its handshake would be
      // emitted (on nextTick) before a promise continuation runs.
      accepted.pause();
      resolve({ socket: accepted, protocol });
    });
  });
}
