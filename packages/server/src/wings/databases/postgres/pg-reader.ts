import { StreamEndedError, StreamReader } from '../stream-reader.js';
import { maxMessageBytes, maxStartupBytes, WireError } from './pg-wire.js';

export interface TypedMessage {
  type: string;
  body: Buffer;
}

/**
 * Reads PostgreSQL's startup-phase packets and typed messages while a connection starts; the
 * buffering, and `release` for the relay that follows, are the shared StreamReader's.
 */
export class PacketReader extends StreamReader {
  /** A startup-phase packet (int32 length, then the rest): its bytes after the length. */
  async startupPacket(): Promise<Buffer> {
    await this.#need(4);
    const length = this.peek(4).readInt32BE(0);
    if (length < 8 || length > maxStartupBytes) {
      throw new WireError(`a startup packet of ${length} bytes is refused`);
    }
    await this.#need(length);
    return this.take(length).subarray(4);
  }

  /** A typed message (type byte, int32 length, body). */
  async message(): Promise<TypedMessage> {
    await this.#need(5);
    const length = this.peek(5).readInt32BE(1);
    if (length < 4 || length > maxMessageBytes) {
      throw new WireError(`a message of ${length} bytes is refused`);
    }
    await this.#need(length + 1);
    const whole = this.take(length + 1);
    return { type: String.fromCharCode(whole[0]!), body: whole.subarray(5) };
  }

  /** The engine hears a closed connection as a protocol error, as it always has. */
  async #need(bytes: number): Promise<void> {
    try {
      await this.need(bytes);
    } catch (error) {
      throw error instanceof StreamEndedError ? new WireError(error.message) : error;
    }
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
