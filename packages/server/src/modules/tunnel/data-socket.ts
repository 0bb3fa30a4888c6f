import type { RawData, WebSocket } from 'ws';
import { closeReason } from './control-socket.js';
import { dataHelloSchema, parseTextFrame, POLICY_VIOLATION } from './tunnel-protocol.js';
import type { TunnelRegistry } from './tunnel-registry.js';
import { closeOnProtocolError } from '../../websocket/protocol-errors.js';

/**
 * One connection an agent opens because the proxy asked for it. Its first text frame repeats the
 * connection id of the path; the id is the only credential, so it must name a dial still pending
 * on that agent's current control channel (single use, 10 s). After that the socket carries the
 * bytes of one SSH connection to the node service.
 */
export function serveDataSocket(
  socket: WebSocket,
  connectionId: string,
  registry: TunnelRegistry,
  helloTimeoutMs: number,
): void {
  const refuse = (message: string) => socket.close(POLICY_VIOLATION, closeReason(message));
  const timer = setTimeout(() => refuse('expected {id} first'), helloTimeoutMs);

  const onFirstFrame = (data: RawData, isBinary: boolean) => {
    clearTimeout(timer);
    // The stream the dial gets takes over the socket from the next frame on.
    socket.off('message', onFirstFrame);
    const hello = dataHelloSchema.safeParse(parseTextFrame(data, isBinary));
    const accepted =
      hello.success && hello.data.id === connectionId && registry.accept(hello.data.id, socket);
    if (!accepted) refuse('unknown or expired connection id');
  };
  socket.on('message', onFirstFrame);
  socket.on('close', () => clearTimeout(timer));
  closeOnProtocolError(socket);
}
