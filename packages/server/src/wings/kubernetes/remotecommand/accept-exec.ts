import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { acceptSpdyUpgrade } from '../httpstream/accept-spdy.js';
import { acceptWebSocket } from '../httpstream/accept-websocket.js';
import { isWebSocketUpgrade } from '../httpstream/negotiate.js';
import { refuseUpgrade } from '../httpstream/raw-response.js';
import { parseExecRequest, type ExecRequest } from './exec-request.js';
import { remoteCommandProtocols } from './protocol.js';
import type { ExecServerSession } from './session.js';
import { serveExecOverSpdy } from './spdy-server.js';
import { serveExecOverWebSocket } from './ws-server.js';

export interface AcceptExecOptions {
  /** What was asked; read from the request's query when not given. */
  request?: ExecRequest;
  /** Take WebSocket upgrades (default). False answers them 400, as servers without it did. */
  websocket?: boolean;
  /** How long a SPDY client gets to open its streams (default 30 s, the kubelet's). */
  streamTimeoutMs?: number;
}

/**
 * Takes an exec or attach upgrade (the `upgrade` event's request, socket and head) over
 * WebSocket (v5.channel.k8s.io or v4) or SPDY/3.1 (the same versions in
 * X-Stream-Protocol-Version), and resolves with the transport-neutral session. A request it
 * cannot take is answered with a Status and rejected with UpgradeRefusedError.
 */
export async function acceptExec(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  options: AcceptExecOptions = {},
): Promise<ExecServerSession> {
  // From here on the socket is ours: an error on it only ends it.
  socket.on('error', () => socket.destroy());
  let request = options.request;
  if (!request) {
    try {
      request = parseExecRequest(new URL(req.url ?? '/', 'http://unused').searchParams);
    } catch {
      throw refuseUpgrade(socket, 400, 'the exec options in the query are not valid');
    }
  }
  if (!request.stdin && !request.stdout && !request.stderr) {
    throw refuseUpgrade(socket, 400, 'you must specify at least 1 of stdin, stdout, stderr');
  }
  if (isWebSocketUpgrade(req)) {
    if (options.websocket === false) {
      throw refuseUpgrade(socket, 400, 'WebSocket upgrades are not served here');
    }
    const accepted = await acceptWebSocket(req, socket, head, remoteCommandProtocols);
    return serveExecOverWebSocket(accepted.socket, accepted.protocol, request);
  }
  const { connection, protocol } = acceptSpdyUpgrade(req, socket, head, remoteCommandProtocols);
  return serveExecOverSpdy(connection, protocol, request, {
    streamTimeoutMs: options.streamTimeoutMs,
  });
}
