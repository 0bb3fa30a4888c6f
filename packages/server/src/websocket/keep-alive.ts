import type WebSocket from 'ws';

/**
 * Pings the other end every `intervalMs` and terminates the socket when a ping went unanswered
 * for a whole interval: a peer that vanished without closing (a host gone, a cable cut) is
 * noticed in at most two intervals instead of when TCP gives up, and the pings keep an idle
 * socket open through load balancers that drop idle ones. Either side of a socket may use it,
 * the server's or a client's.
 */
export function keepAlive(socket: WebSocket, intervalMs: number) {
  let answered = true;
  socket.on('pong', () => (answered = true));
  const timer = setInterval(() => {
    if (!answered) return socket.terminate();
    answered = false;
    socket.ping();
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
