import type { Duplex } from 'node:stream';

/** The stream ended (or failed) before the bytes a reader waited for arrived. */
export class StreamEndedError extends Error {}

/**
 * Buffers a stream's bytes for a protocol engine while a connection starts (the handshake, the
 * authentication exchange), where messages are few and small. `release` hands back what arrived
 * past what was taken, so the relay that follows starts with those bytes and then pipes the
 * stream. Each protocol reads its own framing on top (PostgreSQL's typed messages, MySQL's
 * numbered packets).
 */
export class StreamReader {
  #chunks: Buffer[] = [];
  #length = 0;
  #waiter: (() => void) | undefined;
  #ended: Error | undefined;
  readonly #onData = (chunk: Buffer) => {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    this.#wake();
  };
  readonly #onEnd = () => {
    this.#ended ??= new StreamEndedError('the connection closed');
    this.#wake();
  };
  readonly #onError = (error: Error) => {
    this.#ended ??= error;
    this.#wake();
  };

  constructor(private readonly stream: Duplex) {
    stream.on('data', this.#onData);
    stream.on('end', this.#onEnd);
    stream.on('close', this.#onEnd);
    stream.on('error', this.#onError);
    // A stream handed on paused (after a PROXY protocol header) flows again for this reader.
    stream.resume();
  }

  /** How many bytes are buffered. */
  get buffered(): number {
    return this.#length;
  }

  /** Waits until at least `bytes` are buffered; rejects when the stream ends first. */
  async need(bytes: number): Promise<void> {
    while (this.#length < bytes) await this.#more();
  }

  /** Stops reading; returns the bytes that arrived past what was taken. */
  release(): Buffer {
    this.stream.off('data', this.#onData);
    this.stream.off('end', this.#onEnd);
    this.stream.off('close', this.#onEnd);
    this.stream.off('error', this.#onError);
    const rest = Buffer.concat(this.#chunks, this.#length);
    this.#chunks = [];
    this.#length = 0;
    return rest;
  }

  /** The first `bytes` buffered bytes, left in the buffer (`bytes` must be buffered). */
  peek(bytes: number): Buffer {
    if (this.#chunks[0]!.length < bytes) this.#chunks = [Buffer.concat(this.#chunks, this.#length)];
    return this.#chunks[0]!.subarray(0, bytes);
  }

  /** Removes and returns the first `bytes` buffered bytes (`bytes` must be buffered). */
  take(bytes: number): Buffer {
    const all = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    const taken = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#length = rest.length;
    return taken;
  }

  #more(): Promise<void> {
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }
}
