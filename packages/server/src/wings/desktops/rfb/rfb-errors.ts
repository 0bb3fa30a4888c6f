/**
 * Bad input from a peer: a message RFB does not allow, a length past our limits, pixels outside
 * the screen. The relay ends that one session with `protocol error: <message>`; nothing else is
 * affected.
 */
export class RfbProtocolError extends Error {
  override readonly name = 'RfbProtocolError';
}

/**
 * The peer is gone (its stream ended, closed or failed) while we waited to read from it or to
 * write to it. `message` says which peer, for the audit: "the desktop closed the connection".
 */
export class PeerGoneError extends Error {
  override readonly name = 'PeerGoneError';
  constructor(
    message: string,
    /** The socket error behind it, when the stream failed rather than ended. */
    readonly failure?: Error,
  ) {
    super(failure ? `${message}: ${failure.message}` : message);
  }
}
