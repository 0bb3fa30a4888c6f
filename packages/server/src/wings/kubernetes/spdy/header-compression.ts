import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { spdy3Dictionary } from './dictionary.js';
import { SpdyProtocolError } from './frames.js';

/** Header names and their values; SPDY carries several values of one name NUL-separated. */
export type SpdyHeaders = Record<string, string[]>;
/** What callers pass: one value or several per name; names are lowercased on the wire. */
export type SpdyHeadersInit = Record<string, string | readonly string[]>;

/** The first value of a header, whatever the case of `name`. */
export function headerValue(headers: SpdyHeaders, name: string): string | undefined {
  return headers[name.toLowerCase()]?.[0];
}

/** Headers as they travel: names lowercased, every value a list. */
export function normalizedHeaders(headers: SpdyHeadersInit): SpdyHeaders {
  const result: SpdyHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    result[name.toLowerCase()] = typeof value === 'string' ? [value] : [...value];
  }
  return result;
}

// Headers HTTP/1.1 needs and SPDY forbids (section 3.2.1): Go's framer ends the connection
// when a SYN_STREAM carries one.
const forbiddenNames = new Set([
  'connection',
  'host',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
]);

/** Why `headers` cannot be sent (a name empty or forbidden, a NUL in a value), or undefined. */
export function headersProblem(headers: SpdyHeadersInit): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    if (name.length === 0) return 'a SPDY header name cannot be empty';
    if (forbiddenNames.has(name.toLowerCase())) return `SPDY forbids the header ${name}`;
    const values = typeof value === 'string' ? [value] : value;
    if (values.some((each) => each.includes('\0'))) return `the header ${name} holds a NUL`;
  }
  return undefined;
}

/** A header block that decompressed but breaks the rules of section 2.6.10: a stream error. */
export class InvalidHeaderBlockError extends SpdyProtocolError {}

/** The uncompressed Name/Value Header Block (section 2.6.10). */
export function encodeHeaderBlock(headers: SpdyHeadersInit): Buffer {
  const problem = headersProblem(headers);
  if (problem) throw new Error(problem);
  const entries = Object.entries(headers);
  const parts: Buffer[] = [uint32(entries.length)];
  for (const [name, value] of entries) {
    const values = typeof value === 'string' ? [value] : value;
    // Go's framer refuses names that are not lowercase.
    const nameBytes = Buffer.from(name.toLowerCase(), 'utf8');
    const valueBytes = Buffer.from(values.join('\0'), 'utf8');
    parts.push(uint32(nameBytes.length), nameBytes, uint32(valueBytes.length), valueBytes);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  const headers: SpdyHeaders = {};
  if (block.length < 4) throw new InvalidHeaderBlockError('a header block without its count');
  const count = block.readUInt32BE(0);
  // Each pair takes at least 8 bytes of lengths: a count above that is a lie, not a big block.
  if (count > (block.length - 4) / 8) throw new InvalidHeaderBlockError('too many header pairs');
  let at = 4;
  const field = (what: string): string => {
    if (block.length - at < 4) throw new InvalidHeaderBlockError(`a header ${what} is cut short`);
    const length = block.readUInt32BE(at);
    if (block.length - at - 4 < length) {
      throw new InvalidHeaderBlockError(`a header ${what} is cut short`);
    }
    const text = block.toString('utf8', at + 4, at + 4 + length);
    at += 4 + length;
    return text;
  };
  for (let index = 0; index < count; index++) {
    const name = field('name').toLowerCase();
    if (name.length === 0) throw new InvalidHeaderBlockError('a header name is empty');
    if (name in headers) throw new InvalidHeaderBlockError(`the header ${name} appears twice`);
    const value = field('value');
    const values = value.split('\0');
    if (values.length > 1 && values.some((part) => part.length === 0)) {
      throw new InvalidHeaderBlockError(`the header ${name} has an empty value among several`);
    }
    headers[name] = values;
  }
  if (at !== block.length) throw new InvalidHeaderBlockError('bytes after the last header');
  return headers;
}

/**
 * One direction's compression context. SPDY keeps a single zlib stream per direction for the
 * life of the connection, primed with the dictionary, with a SYNC_FLUSH after each block: a
 * block can refer back to the bytes of earlier ones, so blocks must be compressed (and sent)
 * in order. Calls are chained for that.
 */
export class HeaderCompressor {
  readonly #deflate: Deflate = createDeflate({ dictionary: spdy3Dictionary });
  readonly #codec: ZlibBlocks;

  constructor() {
    this.#codec = new ZlibBlocks(this.#deflate, Number.POSITIVE_INFINITY);
  }

  compress(headers: SpdyHeadersInit): Promise<Buffer> {
    return this.compressBlock(encodeHeaderBlock(headers));
  }

  /** Compresses a header block already encoded (section 2.6.10), whatever it holds. */
  compressBlock(block: Buffer): Promise<Buffer> {
    return this.#codec.run(block);
  }

  close(): void {
    this.#deflate.destroy();
  }
}

/** The receiving context; refuses a block that inflates past `maxHeaderBytes`. */
export class HeaderDecompressor {
  readonly #inflate: Inflate = createInflate({ dictionary: spdy3Dictionary });
  readonly #codec: ZlibBlocks;

  constructor(maxHeaderBytes = 256 * 1024) {
    this.#codec = new ZlibBlocks(this.#inflate, maxHeaderBytes);
  }

  async decompress(block: Buffer): Promise<SpdyHeaders> {
    return decodeHeaderBlock(await this.#codec.run(block));
  }

  close(): void {
    this.#inflate.destroy();
  }
}

/**
 * Runs blocks through a long-lived zlib stream one at a time: write, SYNC_FLUSH, and collect what
 * came out before the flush completed (zlib emits a flush's output before calling it back). An
 * output past `maxOutput` fails at once, while inflating, so a small block cannot balloon.
 */
class ZlibBlocks {
  #tail: Promise<unknown> = Promise.resolve();
  #output: Buffer[] = [];
  #outputLength = 0;
  #failure: Error | undefined;
  #reject: ((error: Error) => void) | undefined;

  constructor(
    private readonly stream: Deflate | Inflate,
    private readonly maxOutput: number,
  ) {
    stream.on('data', (chunk: Buffer) => {
      this.#output.push(chunk);
      this.#outputLength += chunk.length;
      if (this.#outputLength > this.maxOutput) {
        this.#fail(new SpdyProtocolError(`a header block inflates past ${this.maxOutput} bytes`));
        stream.destroy();
      }
    });
    stream.on('error', (error: Error) => {
      this.#fail(new SpdyProtocolError(`header compression failed: ${error.message}`));
    });
  }

  run(input: Buffer): Promise<Buffer> {
    const result = this.#tail.then(() => this.#one(input));
    this.#tail = result.catch(() => undefined);
    return result;
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#reject?.(this.#failure);
    this.#reject = undefined;
  }

  #one(input: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.#failure) return reject(this.#failure);
      this.#output = [];
      this.#outputLength = 0;
      this.#reject = reject;
      this.stream.write(input);
      this.stream.flush(constants.Z_SYNC_FLUSH, () => {
        if (this.#failure) return reject(this.#failure);
        this.#reject = undefined;
        resolve(Buffer.concat(this.#output, this.#outputLength));
      });
    });
  }
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}
