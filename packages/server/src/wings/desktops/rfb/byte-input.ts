import type { Readable } from 'node:stream';
import { PeerGoneError } from './rfb-errors.js';

/** Chunks shorter than this are copied together into blocks of `blockBytes`. */
const smallChunk = 1024;
const blockBytes = 16 * 1024;

/**
 * Reads RFB from a stream as a series of awaited reads (`await input.read(12)`), so parsers are
 * straight-line code however the bytes were split into chunks.
 *
 * Buffering is bounded: once more than `highWater` bytes wait unread the stream is paused, and it
 * resumes when a reader asks for more than is there. The most ever held is therefore the largest
 * single `need(n)` a parser makes (each parser checks a message's length against its limit before
 * asking) plus one chunk. Pausing is also how backpressure reaches the peer: while the relay waits
 * for the other side to drain, nothing is read, so TCP holds the sender back.
 */
export class ByteInput {
  readonly #stream: Readable;
  readonly #peer: string;
  readonly #highWater: number;
  #chunks: Buffer[] = [];
  #length = 0;
  /** Where small chunks are gathered (see #pushSmall), and how much of it is filled. */
  #block: Buffer | undefined;
  #blockUsed = 0;
  #gone: PeerGoneError | undefined;
  #waiter: { bytes: number; resolve: () => void; reject: (error: Error) => void } | undefined;

  /** `peer` names the other end in errors: "the desktop", "the browser". */
  constructor(stream: Readable, peer: string, highWater = 64 * 1024) {
    this.#stream = stream;
    this.#peer = peer;
    this.#highWater = highWater;
    stream.on('data', (chunk: Buffer) => this.#push(chunk));
    stream.once('end', () => this.#end());
    stream.once('close', () => this.#end());
    stream.on('error', (error: Error) => this.#end(error));
  }

  /** Bytes buffered and not read yet. */
  get length(): number {
    return this.#length;
  }

  /** Resolves once `bytes` bytes can be read; rejects with PeerGoneError if they never will. */
  need(bytes: number): Promise<void> | undefined {
    if (this.#length >= bytes) return undefined;
    if (this.#gone) return Promise.reject(this.#gone);
    if (this.#waiter) throw new Error('ByteInput has one reader at a time');
    this.#stream.resume();
    return new Promise((resolve, reject) => (this.#waiter = { bytes, resolve, reject }));
  }

  /** The next `bytes` bytes, once they are there. */
  async read(bytes: number): Promise<Buffer> {
    if (this.#length < bytes) await this.need(bytes);
    return this.take(bytes);
  }

  /** At least one and at most `bytes` bytes, without copying: for payloads relayed as they come. */
  async readUpTo(bytes: number): Promise<Buffer> {
    if (this.#length === 0) await this.need(1);
    const first = this.#chunks[0]!;
    return this.take(Math.min(bytes, first.length));
  }

  /** Reads past `bytes` bytes as they come, holding none of them (a clipboard text too long). */
  async skip(bytes: number): Promise<void> {
    while (bytes > 0) bytes -= (await this.readUpTo(bytes)).length;
  }

  /** The byte `offset` bytes ahead, without consuming it (after `need`). */
  peekU8(offset = 0): number {
    for (const chunk of this.#chunks) {
      if (offset < chunk.length) return chunk[offset]!;
      offset -= chunk.length;
    }
    throw new RangeError('peek past the buffered bytes');
  }

  /** Consumes `bytes` bytes that `need` made available; one copy only if they span chunks. */
  take(bytes: number): Buffer {
    if (bytes > this.#length) throw new RangeError('take past the buffered bytes');
    let out: Buffer;
    const first = this.#chunks[0];
    if (first && first.length >= bytes) {
      out = first.subarray(0, bytes);
      if (first.length === bytes) this.#chunks.shift();
      else this.#chunks[0] = first.subarray(bytes);
    } else {
      out = Buffer.allocUnsafe(bytes);
      let at = 0;
      while (at < bytes) {
        const chunk = this.#chunks[0]!;
        const used = Math.min(chunk.length, bytes - at);
        chunk.copy(out, at, 0, used);
        at += used;
        if (used === chunk.length) this.#chunks.shift();
        else this.#chunks[0] = chunk.subarray(used);
      }
    }
    this.#length -= bytes;
    if (this.#length < this.#highWater && !this.#gone) this.#stream.resume();
    return out;
  }

  #push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    if (chunk.length < smallChunk) this.#pushSmall(chunk);
    else this.#chunks.push(chunk);
    this.#length += chunk.length;
    const waiter = this.#waiter;
    if (waiter && this.#length >= waiter.bytes) {
      this.#waiter = undefined;
      waiter.resolve();
    }
    if (this.#length >= this.#highWater && !this.#waiter) this.#stream.pause();
  }

  /**
   * Copies a small chunk into a shared 16 KiB block, growing the queue's last entry, so a peer
   * that trickles a long message a byte at a time costs bytes, not a Buffer object per byte.
   */
  #pushSmall(chunk: Buffer): void {
    const block = this.#block;
    const last = this.#chunks[this.#chunks.length - 1];
    const blockEnd = block ? block.byteOffset + this.#blockUsed : -1;
    if (
      block &&
      last &&
      last.buffer === block.buffer &&
      last.byteOffset + last.length === blockEnd &&
      this.#blockUsed + chunk.length <= block.length
    ) {
      chunk.copy(block, this.#blockUsed);
      this.#blockUsed += chunk.length;
      this.#chunks[this.#chunks.length - 1] = Buffer.from(
        block.buffer,
        last.byteOffset,
        last.length + chunk.length,
      );
      return;
    }
    this.#block = Buffer.allocUnsafeSlow(blockBytes);
    chunk.copy(this.#block);
    this.#blockUsed = chunk.length;
    this.#chunks.push(this.#block.subarray(0, chunk.length));
  }

  #end(failure?: Error): void {
    if (this.#gone) return;
    this.#gone = new PeerGoneError(
      failure ? `the connection to ${this.#peer} failed` : `${this.#peer} closed the connection`,
      failure,
    );
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.reject(this.#gone);
  }
}
