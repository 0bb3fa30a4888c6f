import type { WebSocket } from 'ws';

/** How long a peer that broke the protocol gets to answer our close frame before we cut it. */
const closeGraceMs = 2_000;

/**
 * What every server WebSocket does when its peer breaks the protocol. `ws` has already started
 * the closing handshake with the RFC 6455 code that names the fault (1002 protocol error, 1007
 * invalid data, 1009 too big) by the time it emits 'error'; terminating at once would throw
 * away that close frame when it is still queued behind output (a busy terminal), and the client
 * would see only an abrupt 1006. So the frame is let out, and the socket is cut only when the
 * peer does not finish the handshake within a short grace.
 */
export function closeOnProtocolError(socket: WebSocket): void {
  socket.on('error', () => {
    if (socket.readyState === socket.OPEN) socket.close(1002);
    const timer = setTimeout(() => socket.terminate(), closeGraceMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}
