import jpeg from 'jpeg-js';
import type { Rect } from './framebuffer.js';
import type { DeferredPaint, PaintTarget } from './paint-log.js';
import { decodeJpegOffThread, jpegDecodeOptions } from './jpeg-thread.js';
import { RfbProtocolError } from './rfb-errors.js';

/**
 * Tight's rectangles (rfbproto §7.7.5) as deferred paints (paint-log.ts): each keeps what it
 * needs to draw itself, and draws when the proxy's copy of the screen is read.
 *
 * TPIXELs are 3 bytes, R, G, B: Tight packs them so when the pixel format is 32 bits of true
 * colour at depth 24, as the proxy's is. The framebuffer's words are R, G, B, A in memory.
 */
export const opaque = (red: number, green: number, blue: number) =>
  (red | (green << 8) | (blue << 16) | 0xff000000) >>> 0;

/** FillCompression: the rectangle in one colour. */
export class FillPaint implements DeferredPaint {
  readonly bytes = 0;
  readonly ready = true;
  readonly #word: number;

  constructor(
    readonly rect: Rect,
    tpixel: Buffer,
  ) {
    this.#word = opaque(tpixel[0]!, tpixel[1]!, tpixel[2]!);
  }

  paint(target: PaintTarget): void {
    const { x, y, width, height } = this.rect;
    for (let row = 0; row < height; row++) {
      const start = (y + row) * target.width + x;
      target.words.fill(this.#word, start, start + width);
    }
  }
}

/**
 * JpegCompression: a JPEG of the rectangle, kept as it came (the pieces it was read in) and
 * decoded only if it is still on screen when the copy is read: on the JPEG thread when the
 * reader says so first (`prepare`, jpeg-thread.ts), otherwise here when drawn.
 */
export class JpegPaint implements DeferredPaint {
  readonly ready = true;
  readonly bytes: number;
  readonly #pieces: Buffer[];
  #prepared: Promise<void> | undefined;
  #decoded: Uint8Array | undefined;
  #failure: Error | undefined;

  constructor(
    readonly rect: Rect,
    pieces: Buffer[],
  ) {
    this.#pieces = pieces;
    this.bytes = pieces.reduce((sum, piece) => sum + piece.length, 0);
  }

  /** Decodes it on the JPEG thread; never rejects (a failure is thrown when it is drawn). */
  prepare(): Promise<void> {
    this.#prepared ??= (async () => {
      try {
        const { width, height } = this.rect;
        const image = await decodeJpegOffThread(this.#checkedBytes(), width, height);
        this.#decoded = this.#checkedImage(image);
      } catch (error) {
        this.#failure = asProtocolError(error as Error);
      }
    })();
    return this.#prepared;
  }

  paint(target: PaintTarget): void {
    if (this.#failure) throw this.#failure;
    const data = this.#decoded ?? this.#decodeHere();
    const { x, y, width, height } = this.rect;
    const rowBytes = width * 4;
    for (let row = 0; row < height; row++) {
      const from = row * rowBytes;
      target.pixels.set(data.subarray(from, from + rowBytes), ((y + row) * target.width + x) * 4);
    }
  }

  #decodeHere(): Uint8Array {
    let image: { width: number; height: number; data: Uint8Array };
    try {
      image = jpeg.decode(this.#checkedBytes(), jpegDecodeOptions(this.rect));
    } catch (error) {
      throw asProtocolError(error as Error);
    }
    return this.#checkedImage(image);
  }

  /** The JPEG whole, once its frame header says it is the rectangle's size. */
  #checkedBytes(): Buffer {
    const bytes = Buffer.concat(this.#pieces, this.bytes);
    // Checked before decoding: the decoder allocates for the size the JPEG claims.
    const claimed = jpegFrameSize(bytes);
    if (!claimed) throw new RfbProtocolError('a Tight JPEG without a baseline frame header');
    this.#checkSize(claimed);
    return bytes;
  }

  #checkedImage(image: { width: number; height: number; data: Uint8Array }): Uint8Array {
    this.#checkSize(image);
    return image.data;
  }

  #checkSize(size: { width: number; height: number }): void {
    const { width, height } = this.rect;
    if (size.width !== width || size.height !== height) {
      throw new RfbProtocolError(
        `a Tight JPEG of ${size.width}×${size.height} for a ${width}×${height} rectangle`,
      );
    }
  }
}

function asProtocolError(error: Error): Error {
  if (error instanceof RfbProtocolError) return error;
  return new RfbProtocolError(`a Tight JPEG that does not decode (${error.message})`);
}

/**
 * The width and height in a JPEG's frame header (SOF0 to SOF2: baseline, extended, progressive),
 * walking the segments from SOI; undefined when there is none before the scan.
 */
export function jpegFrameSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return undefined;
  let at = 2;
  while (at + 4 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1]!;
    const length = bytes.readUInt16BE(at + 2);
    if (marker >= 0xc0 && marker <= 0xc2) {
      if (at + 9 > bytes.length) return undefined;
      return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
    }
    if (marker === 0xda || length < 2) return undefined;
    at += 2 + length;
  }
  return undefined;
}

export type TightFilter = 'copy' | 'palette' | 'gradient';

/**
 * BasicCompression: the rectangle's data through a filter (copy: TPIXELs; palette: indices, a
 * bit each for two colours or fewer, a byte each above; gradient: TPIXELs less a prediction).
 * The data comes from one of the four zlib streams, behind the reading: `ready` once it is in.
 */
export class TightRectPaint implements DeferredPaint {
  readonly size: number;
  #data: Uint8Array | undefined;

  constructor(
    readonly rect: Rect,
    readonly filter: TightFilter,
    /** The palette's colours as words (palette filter only). */
    readonly palette: Uint32Array = new Uint32Array(0),
  ) {
    this.size = tightDataSize(rect, filter, palette.length);
  }

  get ready(): boolean {
    return this.#data !== undefined;
  }

  get bytes(): number {
    return this.#data?.length ?? 0;
  }

  /** The rectangle's data, `size` bytes once inflated (or as sent, when under 12 bytes). */
  take(data: Uint8Array): void {
    this.#data = data;
  }

  paint(target: PaintTarget): void {
    const data = this.#data!;
    if (this.filter === 'copy') copyRows(target, this.rect, data);
    else if (this.filter === 'gradient') gradientRows(target, this.rect, data);
    else if (this.palette.length <= 2) monoRows(target, this.rect, data, this.palette);
    else indexedRows(target, this.rect, data, this.palette);
  }
}

/** Bytes of a basic rectangle's data once inflated. */
function tightDataSize(rect: Rect, filter: TightFilter, colours: number): number {
  if (filter !== 'palette') return rect.width * rect.height * 3;
  const rowBytes = colours <= 2 ? Math.ceil(rect.width / 8) : rect.width;
  return rowBytes * rect.height;
}

function copyRows(target: PaintTarget, rect: Rect, data: Uint8Array): void {
  const words = target.words;
  let from = 0;
  for (let row = 0; row < rect.height; row++) {
    let to = (rect.y + row) * target.width + rect.x;
    const end = to + rect.width;
    for (; to < end; to++, from += 3)
      words[to] = opaque(data[from]!, data[from + 1]!, data[from + 2]!);
  }
}

function monoRows(target: PaintTarget, rect: Rect, data: Uint8Array, palette: Uint32Array): void {
  const rowBytes = Math.ceil(rect.width / 8);
  const words = target.words;
  const zero = palette[0]!;
  const one = palette.length > 1 ? palette[1]! : undefined;
  for (let row = 0; row < rect.height; row++) {
    const to = (rect.y + row) * target.width + rect.x;
    const bits = row * rowBytes;
    for (let column = 0; column < rect.width; column++) {
      if (((data[bits + (column >> 3)]! >> (7 - (column & 7))) & 1) === 0) {
        words[to + column] = zero;
      } else if (one === undefined) {
        throw new RfbProtocolError('a Tight palette index 1 past its palette of 1 colour');
      } else {
        words[to + column] = one;
      }
    }
  }
}

function indexedRows(
  target: PaintTarget,
  rect: Rect,
  data: Uint8Array,
  palette: Uint32Array,
): void {
  const words = target.words;
  const colours = palette.length;
  let from = 0;
  for (let row = 0; row < rect.height; row++) {
    let to = (rect.y + row) * target.width + rect.x;
    const end = to + rect.width;
    while (to < end) {
      const index = data[from++]!;
      if (index >= colours) {
        throw new RfbProtocolError(`a Tight palette index ${index} past its ${colours} colours`);
      }
      words[to++] = palette[index]!;
    }
  }
}

/**
 * The gradient filter: each component is the data plus left + above - above-left (clamped to
 * 0..255, modulo 256 after the addition), taking 0 outside the rectangle.
 */
function gradientRows(target: PaintTarget, rect: Rect, data: Uint8Array): void {
  const { width, height } = rect;
  let above = new Uint8Array(width * 3);
  let current = new Uint8Array(width * 3);
  for (let row = 0; row < height; row++) {
    for (let column = 0; column < width; column++) {
      for (let c = 0; c < 3; c++) {
        const at = column * 3 + c;
        const left = column > 0 ? current[at - 3]! : 0;
        const upperLeft = column > 0 ? above[at - 3]! : 0;
        const prediction = Math.min(255, Math.max(0, left + above[at]! - upperLeft));
        current[at] = (data[row * width * 3 + at]! + prediction) & 0xff;
      }
    }
    const to = (rect.y + row) * target.width + rect.x;
    for (let column = 0, at = 0; column < width; column++, at += 3) {
      target.words[to + column] = opaque(current[at]!, current[at + 1]!, current[at + 2]!);
    }
    [above, current] = [current, above];
  }
}
