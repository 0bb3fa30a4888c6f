import { RfbProtocolError } from './rfb-errors.js';

/** ZRLE cuts a rectangle into tiles of 64×64 pixels, smaller at the right and bottom edges. */
export const zrleTileSide = 64;

/**
 * A CPIXEL in the proxy's pixel format is 3 bytes, R, G, B (RFC 6143 §7.7.6: 32-bit true colour
 * whose channels fit the low three bytes sends only those).
 */
const cpixelBytes = 3;

/**
 * Decodes one ZRLE tile (RFC 6143 §7.7.6) of `width`×`height` starting at `bytes[at]` into
 * `out` as RGBA. Returns where the next tile starts, or undefined when `bytes` ends before this
 * tile does (call again with more). Throws RfbProtocolError on sub-encodings RFB leaves unused,
 * palette indexes past the palette and runs past the tile.
 */
export function decodeZrleTile(
  bytes: Buffer,
  at: number,
  width: number,
  height: number,
  out: Uint8Array,
): number | undefined {
  if (at >= bytes.length) return undefined;
  const subencoding = bytes[at]!;
  const pixels = width * height;
  let next = at + 1;
  if (subencoding === 0) {
    const end = next + pixels * cpixelBytes;
    if (end > bytes.length) return undefined;
    for (let pixel = 0; pixel < pixels; pixel++, next += cpixelBytes)
      setPixel(out, pixel, bytes, next);
    return end;
  }
  if (subencoding === 1) {
    if (next + cpixelBytes > bytes.length) return undefined;
    fillPixels(out, 0, pixels, bytes, next);
    return next + cpixelBytes;
  }
  if (subencoding <= 16) return packedPalette(bytes, next, subencoding, width, height, out);
  if (subencoding === 128) return plainRle(bytes, next, pixels, out);
  if (subencoding >= 130) return paletteRle(bytes, next, subencoding - 128, pixels, out);
  throw new RfbProtocolError(
    `a ZRLE tile with sub-encoding ${subencoding}, which RFB leaves unused`,
  );
}

/** Sub-encodings 2–16: a palette, then rows of 1-, 2- or 4-bit indexes, each row byte-aligned. */
function packedPalette(
  bytes: Buffer,
  at: number,
  size: number,
  width: number,
  height: number,
  out: Uint8Array,
): number | undefined {
  const bits = size === 2 ? 1 : size <= 4 ? 2 : 4;
  const rowBytes = Math.ceil((width * bits) / 8);
  const indexesAt = at + size * cpixelBytes;
  const end = indexesAt + rowBytes * height;
  if (end > bytes.length) return undefined;
  const mask = (1 << bits) - 1;
  for (let row = 0; row < height; row++) {
    for (let column = 0; column < width; column++) {
      const bit = column * bits;
      const byte = bytes[indexesAt + row * rowBytes + (bit >> 3)]!;
      const index = (byte >> (8 - bits - (bit & 7))) & mask;
      if (index >= size) throw paletteError(index, size);
      setPixel(out, row * width + column, bytes, at + index * cpixelBytes);
    }
  }
  return end;
}

/** Sub-encoding 128: runs of (CPIXEL, run length). */
function plainRle(bytes: Buffer, at: number, pixels: number, out: Uint8Array): number | undefined {
  let pixel = 0;
  while (pixel < pixels) {
    if (at + cpixelBytes > bytes.length) return undefined;
    const colourAt = at;
    const run = runLength(bytes, at + cpixelBytes, pixels - pixel);
    if (!run) return undefined;
    fillPixels(out, pixel, pixel + run.length, bytes, colourAt);
    pixel += run.length;
    at = run.next;
  }
  return at;
}

/** Sub-encodings 130–255: a palette, then indexes, each with a run length if its top bit is set. */
function paletteRle(
  bytes: Buffer,
  at: number,
  size: number,
  pixels: number,
  out: Uint8Array,
): number | undefined {
  const paletteAt = at;
  at += size * cpixelBytes;
  let pixel = 0;
  while (pixel < pixels) {
    if (at >= bytes.length) return undefined;
    const byte = bytes[at]!;
    const index = byte & 0x7f;
    if (index >= size) throw paletteError(index, size);
    let length = 1;
    at += 1;
    if (byte & 0x80) {
      const run = runLength(bytes, at, pixels - pixel);
      if (!run) return undefined;
      length = run.length;
      at = run.next;
    }
    fillPixels(out, pixel, pixel + length, bytes, paletteAt + index * cpixelBytes);
    pixel += length;
  }
  return at;
}

/**
 * A run length: bytes of 255 add up until one below 255 ends it; the run is 1 + their sum. A run
 * past the `left` pixels of the tile fails at once, so a stream of 255s is never scanned far.
 */
function runLength(
  bytes: Buffer,
  at: number,
  left: number,
): { length: number; next: number } | undefined {
  let length = 1;
  for (;;) {
    if (at >= bytes.length) return undefined;
    const byte = bytes[at++]!;
    length += byte;
    if (length > left) throw runError();
    if (byte !== 255) return { length, next: at };
  }
}

/**
 * Pixels `from` to `to` (not included) of `out` in one colour. Runs and solid tiles are most of
 * a desktop's tiles: one 32-bit fill instead of four byte stores a pixel (RGBA in memory is one
 * little-endian word, A in the top byte). Single pixels, or `out` off a 4-byte boundary, go
 * byte by byte.
 */
function fillPixels(
  out: Uint8Array,
  from: number,
  to: number,
  bytes: Buffer,
  colourAt: number,
): void {
  if (to - from < 4 || !littleEndian || out.byteOffset % 4 !== 0) {
    for (let pixel = from; pixel < to; pixel++) setPixel(out, pixel, bytes, colourAt);
    return;
  }
  const rgba =
    (bytes[colourAt]! | (bytes[colourAt + 1]! << 8) | (bytes[colourAt + 2]! << 16) | 0xff000000) >>>
    0;
  new Uint32Array(out.buffer, out.byteOffset, out.length >> 2).fill(rgba, from, to);
}

const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function setPixel(out: Uint8Array, pixel: number, bytes: Buffer, colourAt: number): void {
  const to = pixel * 4;
  out[to] = bytes[colourAt]!;
  out[to + 1] = bytes[colourAt + 1]!;
  out[to + 2] = bytes[colourAt + 2]!;
  out[to + 3] = 255;
}

const paletteError = (index: number, size: number) =>
  new RfbProtocolError(`a ZRLE palette index ${index} past its palette of ${size} colours`);
const runError = () => new RfbProtocolError('a ZRLE run longer than what is left of its tile');
