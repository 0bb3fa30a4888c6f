import type { Duplex } from 'node:stream';
import { maxMessageBytes, maxStartupBytes, WireError } from './pg-wire.js';

export interface TypedMessage {
  type: string;
  body: Buffer;
}

/**
 * Reads whole packets off a stream while a connection starts (the startup packet, the
 * authentication exchange), where messages are few and small. `release` hands back what arrived
 * past them, so the relay that follows starts with those bytes and then pipes the stream.
 */
export class PacketReader {
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
    this.#ended ??= new WireError('the connection closed');
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
  }

  /** A startup-phase packet (int32 length, then the rest): its bytes after the length. */
  async startupPacket(): Promise<Buffer> {
    for (;;) {
      if (this.#length >= 4) {
        const length = this.#peek(4).readInt32BE(0);
        if (length < 8 || length > maxStartupBytes) {
          throw new WireError(`a startup packet of ${length} bytes is refused`);
        }
        if (this.#length >= length) return this.#take(length).subarray(4);
      }
      await this.#more();
    }
  }

  /** A typed message (type byte, int32 length, body). */
  async message(): Promise<TypedMessage> {
    for (;;) {
      if (this.#length >= 5) {
        const header = this.#peek(5);
        const length = header.readInt32BE(1);
        if (length < 4 || length > maxMessageBytes) {
          throw new WireError(`a message of ${length} bytes is refused`);
        }
        if (this.#length >= length + 1) {
          const whole = this.#take(length + 1);
          return { type: String.fromCharCode(whole[0]!), body: whole.subarray(5) };
        }
      }
      await this.#more();
    }
  }

  /** Stops reading; returns the bytes that arrived past what was read. */
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

  #more(): Promise<void> {
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise((resolve) => (this.#waiter = resolve));
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  #peek(bytes: number): Buffer {
    if (this.#chunks[0]!.length < bytes) this.#chunks = [Buffer.concat(this.#chunks, this.#length)];
    return this.#chunks[0]!.subarray(0, bytes);
  }

  #take(bytes: number): Buffer {
    const all = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    const taken = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#length = rest.length;
    return taken;
  }
}

/**
 * Walks a stream of typed messages across chunks without copying what passes through: bodies of
 * the messages `wanted` picks are handed over (the first `keepBytes` of each), the others are only
 * counted past. The caller forwards the chunks as they came.
 */
export class MessageScanner {
  readonly #header = Buffer.alloc(5);
  #headerHave = 0;
  #type = '';
  #remaining = 0;
  #kept: Buffer[] | undefined;
  #keptBytes = 0;
  #bodyBytes = 0;

  constructor(
    private readonly wanted: (type: string) => boolean,
    private readonly onMessage: (type: string, body: Buffer, truncated: boolean) => void,
    private readonly keepBytes = 64 * 1024,
  ) {}

  /** Throws WireError for a length no PostgreSQL message has. */
  scan(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#headerHave < 5) {
        const copied = chunk.copy(this.#header, this.#headerHave, at, at + 5 - this.#headerHave);
        this.#headerHave += copied;
        at += copied;
        if (this.#headerHave < 5) return;
        const length = this.#header.readInt32BE(1);
        if (length < 4 || length > maxMessageBytes) {
          throw new WireError(`a message of ${length} bytes is refused`);
        }
        this.#type = String.fromCharCode(this.#header[0]!);
        this.#remaining = length - 4;
        this.#bodyBytes = this.#remaining;
        this.#kept = this.wanted(this.#type) ? [] : undefined;
        this.#keptBytes = 0;
        if (this.#remaining === 0) this.#finish();
        continue;
      }
      const take = Math.min(this.#remaining, chunk.length - at);
      if (this.#kept && this.#keptBytes < this.keepBytes) {
        const keep = Math.min(take, this.keepBytes - this.#keptBytes);
        this.#kept.push(chunk.subarray(at, at + keep));
        this.#keptBytes += keep;
      }
      at += take;
      this.#remaining -= take;
      if (this.#remaining === 0) this.#finish();
    }
  }

  #finish(): void {
    const kept = this.#kept;
    this.#headerHave = 0;
    this.#kept = undefined;
    if (!kept) return;
    const body = kept.length === 1 ? kept[0]! : Buffer.concat(kept, this.#keptBytes);
    this.onMessage(this.#type, body, this.#keptBytes < this.#bodyBytes);
  }
}
