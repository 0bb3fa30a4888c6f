import type { Duplex } from 'node:stream';
import { FrameWriter } from './frame-writer.js';
import { encodeFrame, type Frame } from './frames.js';
import { HeaderCompressor, type SpdyHeadersInit } from './header-compression.js';

/** How long a closed connection waits for the peer to hang up before cutting the transport. */
const hangUpGraceMs = 2_000;

/**
 * The sending half: frames in order (header blocks compressed in that same order, one zlib
 * context for the direction), GOAWAY at most once, and the transport's end.
 */
export class Outbound {
  readonly #writer: FrameWriter;
  readonly #compressor = new HeaderCompressor();
  #closed = false;
  #ending = false;
  goAwaySent = false;

  constructor(
    private readonly transport: Duplex,
    fail: (error: Error) => void,
  ) {
    this.#writer = new FrameWriter(transport, fail);
  }

  send(frame: Frame): void {
    if (!this.#closed) this.#writer.push(encodeFrame(frame));
  }

  /** Queues a frame whose header block is still compressing; it keeps its place in line. */
  sendWithHeaders(headers: SpdyHeadersInit, frame: (headerBlock: Buffer) => Frame): void {
    if (this.#closed) return;
    this.#writer.push(
      this.#compressor.compress(headers).then((block) => encodeFrame(frame(block))),
    );
  }

  goAway(lastGoodStreamId: number, status: number): void {
    if (this.goAwaySent) return;
    this.goAwaySent = true;
    this.send({ type: 'goaway', lastGoodStreamId, status });
  }

  /** Resolves once what was queued is in the transport and it wants more (frame-writer.ts). */
  drained(): Promise<void> {
    return this.#writer.drained();
  }

  /** Half-closes the transport after what was queued; cuts it if the peer never hangs up. */
  async endTransport(): Promise<void> {
    await this.#writer.drained();
    if (this.transport.destroyed || this.#ending) return;
    this.#ending = true;
    if (!this.transport.writableEnded) this.transport.end();
    const timer = setTimeout(() => this.transport.destroy(), hangUpGraceMs);
    timer.unref();
    this.transport.once('close', () => clearTimeout(timer));
  }

  /** Nothing more is sent; what was queued still goes out. */
  close(): void {
    this.#closed = true;
    this.#compressor.close();
  }
}
