import type { Socket } from 'node:net';

/** What `decide` made of a connection's first bytes: the decision, and how many to drop. */
export interface Peeked<T> {
  decision: T;
  /** Bytes at the start that are read here and never handed on (a PROXY header). */
  consumed?: number;
}

/**
 * Reads a new connection's first bytes until `decide` makes up its mind (undefined: more are
 * needed), then hands the connection to `then` paused, with every byte it did not consume put
 * back unread. A connection that does not say enough within `timeoutMs` is cut. Until it is
 * handed on nobody else listens, so a reset is no unhandled error. A socket handed in paused
 * (after an earlier peek) flows again for this one.
 *
 * For the PROXY protocol header (net/proxy-protocol.ts) and the TLS ClientHello's server name
 * (http/tls-routes.ts), which both route a connection by what it says first.
 */
export function peekConnection<T>(
  socket: Socket,
  timeoutMs: number,
  decide: (bytes: Buffer) => Peeked<T> | undefined,
  then: (decision: T) => void,
): void {
  let buffered: Buffer = Buffer.alloc(0);
  const deadline = setTimeout(() => socket.destroy(), timeoutMs);
  deadline.unref();
  const onError = () => socket.destroy();
  const stop = () => {
    clearTimeout(deadline);
    socket.off('data', onData);
    socket.off('close', stop);
    socket.off('error', onError);
  };
  const onData = (chunk: Buffer) => {
    buffered = buffered.length > 0 ? Buffer.concat([buffered, chunk]) : chunk;
    const peeked = decide(buffered);
    if (!peeked) return;
    stop();
    socket.pause();
    const rest = buffered.subarray(peeked.consumed ?? 0);
    if (rest.length > 0) socket.unshift(rest);
    then(peeked.decision);
  };
  socket.on('data', onData);
  socket.once('close', stop);
  socket.on('error', onError);
  socket.resume();
}
