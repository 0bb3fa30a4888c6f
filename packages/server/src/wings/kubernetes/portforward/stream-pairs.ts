import { rstStatus } from '../spdy/frames.js';
import type { SpdyStream } from '../spdy/spdy-stream.js';
import { portHeader, portStreamType, requestIdHeader, streamTypeHeader } from './protocol.js';

/** One forwarded connection: its data stream, and the error stream beside it. */
export interface ForwardedConnection {
  port: number;
  requestId: string;
  /** The bytes, both ways. End it when the target stops sending. */
  data: SpdyStream;
  /** Tells the client why forwarding failed (as the kubelet words it), and ends both streams. */
  fail(message: string): void;
  /** The forward is over: both streams are ended (the client waits for the error stream's end). */
  done(): void;
}

/**
 * Pairs the streams of each forwarded connection by requestID, as the kubelet does, and hands
 * each pair on once both are there. A stream whose partner never comes is reset after
 * `timeoutMs`; a stream without a valid port or type is refused at once.
 */
export class StreamPairs {
  readonly #waiting = new Map<string, { stream: SpdyStream; timer: NodeJS.Timeout }>();

  constructor(
    private readonly onPair: (connection: ForwardedConnection) => void,
    private readonly timeoutMs: number,
  ) {}

  add(stream: SpdyStream): void {
    const type = stream.header(streamTypeHeader);
    const requestId = stream.header(requestIdHeader);
    const port = Number(stream.header(portHeader));
    const valid = Number.isInteger(port) && port > 0 && port < 65536;
    if (!valid || requestId === undefined || !isStreamType(type)) {
      return stream.reset(rstStatus.refusedStream);
    }
    stream.reply();
    const partner = this.#waiting.get(requestId);
    if (!partner) {
      const timer = setTimeout(() => this.#expire(requestId), this.timeoutMs);
      timer.unref();
      this.#waiting.set(requestId, { stream, timer });
      return;
    }
    clearTimeout(partner.timer);
    this.#waiting.delete(requestId);
    if (partner.stream.header(streamTypeHeader) === type) {
      partner.stream.reset(rstStatus.protocolError);
      return stream.reset(rstStatus.protocolError);
    }
    const [data, error] =
      type === portStreamType.data ? [stream, partner.stream] : [partner.stream, stream];
    this.onPair(pairOf(port, requestId, data, error));
  }

  close(): void {
    for (const { stream, timer } of this.#waiting.values()) {
      clearTimeout(timer);
      stream.reset();
    }
    this.#waiting.clear();
  }

  #expire(requestId: string): void {
    this.#waiting.get(requestId)?.stream.reset();
    this.#waiting.delete(requestId);
  }
}

function isStreamType(type: string | undefined): boolean {
  return type === portStreamType.data || type === portStreamType.error;
}

function pairOf(
  port: number,
  requestId: string,
  data: SpdyStream,
  error: SpdyStream,
): ForwardedConnection {
  // The client never writes on the error stream (it half-closes it at once): drain it anyway.
  error.resume();
  return {
    port,
    requestId,
    data,
    fail: (message) => {
      if (!error.destroyed) error.end(message);
      if (!data.destroyed) data.end();
    },
    done: () => {
      if (!error.destroyed) error.end();
      if (!data.destroyed) data.end();
    },
  };
}
