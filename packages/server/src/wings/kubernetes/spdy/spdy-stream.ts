import { Duplex } from 'node:stream';
import { rstStatus } from './frames.js';
import {
  headersProblem,
  headerValue,
  type SpdyHeaders,
  type SpdyHeadersInit,
} from './header-compression.js';

/** What a stream asks of its connection; SpdyConnection implements it. */
export interface StreamHost {
  /** Sends data (and FIN), within the flow-control windows; resolves once the transport took it. */
  sendData(stream: SpdyStream, data: Buffer, fin: boolean): Promise<void>;
  sendReply(stream: SpdyStream, headers: SpdyHeadersInit): void;
  sendReset(stream: SpdyStream, status: number): void;
  /** The reader took bytes out of the stream's buffer: time, perhaps, for a WINDOW_UPDATE. */
  consumed(stream: SpdyStream): void;
  /** The stream is over: forget it, and credit the connection window with what was never read. */
  released(stream: SpdyStream): void;
}

export interface StreamOptions {
  id: number;
  headers: SpdyHeaders;
  /** Opened by this side (it waits for SYN_REPLY) or by the peer (it waits for `reply`). */
  local: boolean;
  /** The peer's SYN_STREAM carried FIN: it will send nothing. */
  remoteFin: boolean;
  receiveWindow: number;
}

/**
 * One SPDY stream as a Node Duplex: what the peer sends is readable, what is written goes out as
 * DATA frames, `end()` half-closes with FIN, `reset()` sends RST_STREAM. It never emits 'error':
 * a reset or a lost connection ends it quietly, and `resetStatus` says why.
 */
export class SpdyStream extends Duplex {
  readonly id: number;
  /** The SYN_STREAM's headers: the peer's for a stream it opened, ours for one we opened. */
  readonly headers: SpdyHeaders;
  /** The SYN_REPLY's headers, once there is one. */
  replyHeaders: SpdyHeaders | undefined;
  /** The RST_STREAM status when either side reset the stream. */
  resetStatus: number | undefined;
  readonly local: boolean;

  /** Send window, kept by the connection (SPDY/3.1 section 2.6.8). */
  sendWindow = 0;
  /** Bytes received and bytes already given back to the peer with WINDOW_UPDATE. */
  received = 0;
  acknowledged = 0;
  /** Bytes counted as read when the connection last looked (for the connection window). */
  consumedReported = 0;
  remoteFin: boolean;
  localFin = false;

  #replied: boolean;
  #whenReplied: (() => void)[] = [];

  constructor(
    private readonly host: StreamHost,
    options: StreamOptions,
  ) {
    super({ allowHalfOpen: true, readableHighWaterMark: options.receiveWindow });
    this.id = options.id;
    this.headers = options.headers;
    this.local = options.local;
    this.remoteFin = options.remoteFin;
    // A stream we open is usable once its SYN_REPLY came (the connection hands it over then);
    // one the peer opened may send only after our reply: spdystream drops data before it.
    this.#replied = options.local;
    if (options.remoteFin) this.push(null);
  }

  /** The first value of one of the SYN_STREAM's headers (`streamType`, `port`, ...). */
  header(name: string): string | undefined {
    return headerValue(this.headers, name);
  }

  /** Accepts a stream the peer opened (SYN_REPLY). Data written before waits for this. */
  reply(headers: SpdyHeadersInit = {}): void {
    const problem = headersProblem(headers);
    if (problem) throw new Error(problem);
    if (this.#replied || this.destroyed) return;
    this.#replied = true;
    this.host.sendReply(this, headers);
    for (const wake of this.#whenReplied.splice(0)) wake();
  }

  /** Abandons the stream in both directions (RST_STREAM, CANCEL unless said otherwise). */
  reset(status: number = rstStatus.cancel): void {
    if (this.destroyed) return;
    if (this.resetStatus === undefined) {
      this.resetStatus = status;
      this.host.sendReset(this, status);
    }
    this.destroy();
  }

  /** Resolves once the stream may carry data (our reply, for a stream the peer opened). */
  whenReplied(): Promise<void> {
    if (this.#replied) return Promise.resolve();
    return new Promise((resolve) => this.#whenReplied.push(resolve));
  }

  /** From the connection: a DATA frame's payload. False when the reader is behind. */
  receiveData(data: Buffer): boolean {
    this.received += data.length;
    return this.push(data);
  }

  /** From the connection: the peer half-closed. */
  receiveFin(): void {
    if (this.remoteFin) return;
    this.remoteFin = true;
    this.push(null);
  }

  /** From the connection: the peer reset the stream, or the connection is gone. */
  receiveReset(status: number): void {
    if (this.destroyed) return;
    this.resetStatus ??= status;
    this.emit('reset', status);
    this.destroy();
  }

  /** From the connection: our SYN_STREAM carried FIN, so the writable side is already over. */
  finishedBySynStream(): void {
    this.localFin = true;
    this.end();
  }

  /** From the connection: it is gone, but the peer had finished; the reader keeps the rest. */
  connectionEnded(): void {
    this.#replied = true;
    for (const wake of this.#whenReplied.splice(0)) wake();
    this.end();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error) => void) {
    this.host.sendData(this, chunk, false).then(() => callback(), callback);
  }

  override _final(callback: (error?: Error) => void): void {
    if (this.localFin) return callback();
    this.host.sendData(this, Buffer.alloc(0), true).then(() => {
      this.localFin = true;
      callback();
    }, callback);
  }

  override _read(): void {
    this.host.consumed(this);
  }

  // Every way of reading goes through read() (flowing mode too), so this is where consumption is
  // seen; _read alone is not called again while a read is pending, and credit would stall.
  override read(size?: number): unknown {
    const chunk: unknown = super.read(size);
    this.host.consumed(this);
    return chunk;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Ending before both sides finished is a cancel the peer must hear about.
    if (this.resetStatus === undefined && !(this.localFin && this.remoteFin)) {
      this.resetStatus = rstStatus.cancel;
      this.host.sendReset(this, rstStatus.cancel);
    }
    for (const wake of this.#whenReplied.splice(0)) wake();
    this.host.released(this);
    callback(error);
  }
}
