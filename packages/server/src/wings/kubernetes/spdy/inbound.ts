import { FrameReader } from './frame-reader.js';
import type { Frame } from './frames.js';
import {
  HeaderDecompressor,
  InvalidHeaderBlockError,
  type SpdyHeaders,
} from './header-compression.js';

/** A frame with its header block inflated; `headers` is undefined when the block broke a rule. */
export type InboundFrame = Frame extends infer F
  ? F extends { headerBlock: Buffer }
    ? Omit<F, 'headerBlock'> & { headers: SpdyHeaders | undefined }
    : F
  : never;

/** How many decoded frames may wait behind one whose header block is inflating. */
const maxBacklog = 64;

/**
 * The receiving half: bytes to frames, header blocks inflated in the order they came (one zlib
 * context for the whole direction), and frames handed on one at a time in that same order, so
 * the DATA after a SYN_STREAM never reaches a stream that does not exist yet.
 */
export class Inbound {
  readonly #reader: FrameReader;
  readonly #decompressor = new HeaderDecompressor();
  #backlog: Frame[] = [];
  #running = false;
  #closed = false;
  #afterBacklog: (() => void) | undefined;

  constructor(
    maxFrameBytes: number,
    private readonly handle: (frame: InboundFrame) => void,
    private readonly fail: (error: unknown) => void,
    private readonly readingChanged: () => void,
  ) {
    this.#reader = new FrameReader(maxFrameBytes);
  }

  /** Too many frames wait: the transport should not be read for now. */
  get backlogged(): boolean {
    return this.#backlog.length > maxBacklog;
  }

  push(chunk: Buffer): void {
    if (this.#closed) return;
    try {
      this.#backlog.push(...this.#reader.push(chunk));
    } catch (error) {
      this.fail(error);
      return;
    }
    void this.#run();
  }

  /**
   * Calls `done` once every frame already read is handled: the transport's end must not
   * overtake the frames that came before it (a FIN, a GOAWAY) while a header block inflates.
   */
  whenDrained(done: () => void): void {
    if (!this.#running && this.#backlog.length === 0) return done();
    this.#afterBacklog = done;
  }

  close(): void {
    this.#closed = true;
    this.#backlog = [];
    this.#decompressor.close();
  }

  async #run(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    while (this.#backlog.length > 0 && !this.#closed) {
      const frame = this.#backlog.shift()!;
      try {
        this.handle('headerBlock' in frame ? await this.#inflated(frame) : frame);
      } catch (error) {
        this.fail(error);
      }
      this.readingChanged();
    }
    this.#running = false;
    const done = this.#afterBacklog;
    this.#afterBacklog = undefined;
    done?.();
  }

  async #inflated(frame: Extract<Frame, { headerBlock: Buffer }>): Promise<InboundFrame> {
    const { headerBlock, ...rest } = frame;
    try {
      return { ...rest, headers: await this.#decompressor.decompress(headerBlock) };
    } catch (error) {
      // A block that inflated but breaks section 2.6.10 costs its stream, not the connection.
      if (error instanceof InvalidHeaderBlockError) return { ...rest, headers: undefined };
      throw error;
    }
  }
}
