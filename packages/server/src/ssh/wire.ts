/**
 * The SSH wire encoding of RFC 4251 §5: big-endian integers and length-prefixed strings. Keys,
 * signatures and certificates are all built from these, so one reader and one writer serve them.
 */

const UINT32_MAX = 0xffff_ffff;
const UINT64_MAX = (1n << 64n) - 1n;

/** Appends fields and hands back the bytes; every method returns `this` so fields chain. */
export class SshWriter {
  private readonly chunks: Buffer[] = [];

  byte(value: number): this {
    this.chunks.push(Buffer.from([value & 0xff]));
    return this;
  }

  bool(value: boolean): this {
    return this.byte(value ? 1 : 0);
  }

  uint32(value: number): this {
    if (!Number.isInteger(value) || value < 0 || value > UINT32_MAX) {
      throw new RangeError(`uint32 out of range: ${value}`);
    }
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(value);
    this.chunks.push(bytes);
    return this;
  }

  uint64(value: bigint): this {
    if (value < 0n || value > UINT64_MAX) throw new RangeError(`uint64 out of range: ${value}`);
    const bytes = Buffer.alloc(8);
    bytes.writeBigUInt64BE(value);
    this.chunks.push(bytes);
    return this;
  }

  /** A `string`: uint32 length then the bytes. Text is written as UTF-8. */
  string(value: Buffer | string): this {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    this.uint32(bytes.length);
    this.chunks.push(bytes);
    return this;
  }

  /** A `name-list`: comma-separated names in one string. */
  nameList(names: string[]): this {
    return this.string(names.join(','));
  }

  /** Raw bytes with no length prefix (for already-encoded fields). */
  raw(bytes: Buffer): this {
    this.chunks.push(bytes);
    return this;
  }

  toBuffer(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Reads fields in order; any read past the end throws, so truncated input never parses. */
export class SshReader {
  private offset = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly what = 'SSH data',
  ) {}

  get position(): number {
    return this.offset;
  }

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  byte(): number {
    return this.take(1)[0] as number;
  }

  bool(): boolean {
    return this.byte() !== 0;
  }

  uint32(): number {
    return this.take(4).readUInt32BE();
  }

  uint64(): bigint {
    return this.take(8).readBigUInt64BE();
  }

  /** A `string` as raw bytes. */
  string(): Buffer {
    return this.take(this.uint32());
  }

  /** A `string` decoded as UTF-8 text. */
  text(): string {
    return this.string().toString('utf8');
  }

  nameList(): string[] {
    const joined = this.text();
    return joined === '' ? [] : joined.split(',');
  }

  /** Throws unless every byte was consumed: trailing bytes mean a malformed or forged blob. */
  end(): void {
    if (this.remaining !== 0)
      throw new Error(`malformed ${this.what}: ${this.remaining} trailing bytes`);
  }

  private take(length: number): Buffer {
    if (length > this.remaining) throw new Error(`malformed ${this.what}: truncated`);
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }
}

/** Encodes one `string` field on its own (a common building block). */
export const sshString = (value: Buffer | string): Buffer =>
  new SshWriter().string(value).toBuffer();
