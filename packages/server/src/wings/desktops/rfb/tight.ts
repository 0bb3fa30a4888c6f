import type { ByteInput } from './byte-input.js';
import type { Framebuffer, Rect } from './framebuffer.js';
import { InflateBehind } from './inflate-behind.js';
import { RfbProtocolError } from './rfb-errors.js';
import type { Forward } from './server-messages.js';
import { FillPaint, JpegPaint, opaque, TightRectPaint, type TightFilter } from './tight-paints.js';

/** The compression kinds of the control byte's upper half (rfbproto §7.7.5). */
const fillCompression = 0x8;
const jpegCompression = 0x9;
const filters: Record<number, TightFilter> = { 0: 'copy', 1: 'palette', 2: 'gradient' };
/** Data under this many bytes is sent as it is, never through zlib. */
const minToCompress = 12;
/** Compressed bytes one zlib stream may be behind the wire by before reading waits for it. */
const maxBehindBytes = 256 * 1024;

/** One of Tight's four zlib streams, and the rectangles waiting for its output, in order. */
class TightStream {
  readonly inflate: InflateBehind;
  readonly #waiting: { paint: TightRectPaint; data: Uint8Array; got: number }[] = [];

  constructor(index: number) {
    this.inflate = new InflateBehind(`Tight zlib stream ${index}`, (piece) => this.#output(piece));
  }

  get pending(): number {
    return this.#waiting.length;
  }

  expect(paint: TightRectPaint): void {
    this.#waiting.push({ paint, data: new Uint8Array(paint.size), got: 0 });
  }

  /** The desktop flushes zlib at each rectangle's end, so output runs on into the next. */
  #output(piece: Buffer): void {
    let at = 0;
    while (at < piece.length) {
      const first = this.#waiting[0];
      if (!first) throw new RfbProtocolError('Tight zlib data going on past its rectangle');
      const used = Math.min(first.data.length - first.got, piece.length - at);
      first.data.set(piece.subarray(at, at + used), first.got);
      first.got += used;
      at += used;
      if (first.got === first.data.length) {
        first.paint.take(first.data);
        this.#waiting.shift();
      }
    }
  }
}

/**
 * Tight (rfbproto §7.7.5) for one connection: reads each rectangle, forwarding every byte as it
 * is read, and hands the proxy's copy of the screen a deferred paint for it (tight-paints.ts,
 * paint-log.ts): JPEG is decoded only if it is still on screen when the copy is read, and the
 * four zlib streams inflate behind the reading (inflate-behind.ts), as ZRLE's does.
 *
 * `decode: false` (a session nobody records) reads and forwards the rectangles, checking their
 * structure, and keeps nothing.
 */
export class TightDecoder {
  readonly #decode: boolean;
  readonly #streams: (TightStream | undefined)[] = [];
  /** Streams a reset replaced while they still had rectangles to inflate. */
  #retired: TightStream[] = [];
  /** Rectangles handed to a zlib stream and not inflated yet, oldest first. */
  #unready: { paint: TightRectPaint; stream: TightStream }[] = [];

  constructor(options: { decode: boolean }) {
    this.#decode = options.decode;
  }

  /** Reads (and forwards) one Tight rectangle's payload. */
  async readRect(
    rect: Rect,
    framebuffer: Framebuffer,
    input: ByteInput,
    forward: Forward,
  ): Promise<void> {
    const read = async (bytes: number) => {
      const piece = await input.read(bytes);
      await forward(piece);
      return piece;
    };
    const control = (await read(1))[0]!;
    for (let stream = 0; stream < 4; stream++) {
      if (control & (1 << stream)) this.#reset(stream);
    }
    const compression = control >> 4;
    if (compression === fillCompression) {
      const tpixel = await read(3);
      if (this.#decode) framebuffer.defer(new FillPaint(rect, tpixel));
      return;
    }
    if (compression === jpegCompression) {
      const pieces = await this.#stream(input, forward, await compactLength(read));
      if (this.#decode) framebuffer.defer(new JpegPaint(rect, pieces));
      return;
    }
    if (compression & 0x8) {
      throw new RfbProtocolError(`a Tight rectangle of compression ${compression}, not Tight's`);
    }
    const filterId = compression & 0x4 ? (await read(1))[0]! : 0;
    const filter = filters[filterId];
    if (!filter) throw new RfbProtocolError(`a Tight rectangle with filter ${filterId}`);
    let palette: Uint32Array | undefined;
    if (filter === 'palette') {
      const colours = (await read(1))[0]! + 1;
      const tpixels = await read(colours * 3);
      palette = new Uint32Array(colours);
      for (let i = 0; i < colours; i++) {
        palette[i] = opaque(tpixels[i * 3]!, tpixels[i * 3 + 1]!, tpixels[i * 3 + 2]!);
      }
    }
    const paint = new TightRectPaint(rect, filter, palette);
    if (paint.size === 0) return;
    if (paint.size < minToCompress) {
      const data = await read(paint.size);
      if (!this.#decode) return;
      paint.take(Uint8Array.from(data));
      framebuffer.defer(paint);
      return;
    }
    const length = await compactLength(read);
    if (!this.#decode) {
      await this.#stream(input, forward, length);
      return;
    }
    const stream = this.#zlib(compression & 0x3);
    stream.expect(paint);
    this.#unready.push({ paint, stream });
    framebuffer.defer(paint);
    let left = length;
    while (left > 0) {
      const piece = await input.readUpTo(left);
      left -= piece.length;
      await forward(piece);
      stream.inflate.write(piece);
      while (stream.inflate.behindBytes > maxBehindBytes && !stream.inflate.failure) {
        await stream.inflate.progress();
      }
      if (stream.inflate.failure) throw stream.inflate.failure;
    }
  }

  /**
   * Resolves once every rectangle read so far has its data inflated; rejects on a broken
   * stream, or one whose data ended before a rectangle's pixels did.
   */
  async settled(): Promise<void> {
    const waitFor = this.#unready.filter((entry) => !entry.paint.ready);
    this.#unready = waitFor;
    for (;;) {
      const pending = waitFor.filter((entry) => !entry.paint.ready);
      const failed = pending.find((entry) => entry.stream.inflate.failure);
      if (failed) throw failed.stream.inflate.failure!;
      if (pending.length === 0) break;
      // zlib hands over a write's output before calling back: idle, it has inflated all it had.
      const stuck = pending.find((entry) => entry.stream.inflate.idle);
      if (stuck) {
        const error = new RfbProtocolError('Tight zlib data ending before its rectangle did');
        stuck.stream.inflate.fail(error);
        throw error;
      }
      await Promise.race(pending.map((entry) => entry.stream.inflate.progress()));
    }
    this.#closeRetired();
  }

  close(): void {
    for (const stream of [...this.#streams, ...this.#retired]) stream?.inflate.close();
  }

  /** Forwards `length` bytes as they come, and keeps them when decoding. */
  async #stream(input: ByteInput, forward: Forward, length: number): Promise<Buffer[]> {
    const pieces: Buffer[] = [];
    let left = length;
    while (left > 0) {
      const piece = await input.readUpTo(left);
      left -= piece.length;
      if (this.#decode) pieces.push(piece);
      await forward(piece);
    }
    return pieces;
  }

  #zlib(index: number): TightStream {
    return (this.#streams[index] ??= new TightStream(index));
  }

  /** The desktop starts stream `index` afresh: rectangles still inflating keep the old one. */
  #reset(index: number): void {
    const old = this.#streams[index];
    if (!old) return;
    this.#streams[index] = undefined;
    if (old.pending > 0) this.#retired.push(old);
    else old.inflate.close();
  }

  #closeRetired(): void {
    for (const stream of this.#retired) if (stream.pending === 0) stream.inflate.close();
    this.#retired = this.#retired.filter((stream) => stream.pending > 0);
  }
}

/** Tight's compact length: 7 bits a byte, low first, a set top bit for another; the third byte whole. */
async function compactLength(read: (bytes: number) => Promise<Buffer>): Promise<number> {
  let byte = (await read(1))[0]!;
  let length = byte & 0x7f;
  if (byte & 0x80) {
    byte = (await read(1))[0]!;
    length |= (byte & 0x7f) << 7;
    if (byte & 0x80) length |= (await read(1))[0]! << 14;
  }
  return length;
}
