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
 * `out`, one RGBA pixel per word in the machine's byte order (so a Uint8Array over the same
 * memory reads R, G, B, A). Returns where the next tile starts, or undefined when `bytes` ends
 * before this tile does (call again with more). Throws RfbProtocolError on sub-encodings RFB
 * leaves unused, palette indexes past the palette and runs past the tile.
 *
 * Why words: a pixel is one store instead of four, and a palette is turned into words once per
 * tile. Byte by byte, decoding took about 5 ns a pixel, a fifth of a core at 40 full-screen
 * updates a second (docs/desktops.md, Limits).
 */
export function decodeZrleTile(
  bytes: Buffer,
  at: number,
  width: number,
  height: number,
  out: Uint32Array,
): number | undefined {
  if (at >= bytes.length) return undefined;
  const subencoding = bytes[at]!;
  const pixels = width * height;
  const next = at + 1;
  if (subencoding === 0) {
    const end = next + pixels * cpixelBytes;
    if (end > bytes.length) return undefined;
    for (let pixel = 0, from = next; pixel < pixels; pixel++, from += cpixelBytes) {
      out[pixel] = word(bytes, from);
    }
    return end;
  }
  if (subencoding === 1) {
    if (next + cpixelBytes > bytes.length) return undefined;
    out.fill(word(bytes, next), 0, pixels);
    return next + cpixelBytes;
  }
  if (subencoding <= 16) return packedPalette(bytes, next, subencoding, width, height, out);
  if (subencoding === 128) return plainRle(bytes, next, pixels, out);
  if (subencoding >= 130) return paletteRle(bytes, next, subencoding - 128, pixels, out);
  throw new RfbProtocolError(
    `a ZRLE tile with sub-encoding ${subencoding}, which RFB leaves unused`,
  );
}

/** A tile's palette as words; at most 127 colours (palette RLE), so one array serves all. */
const palette = new Uint32Array(128);

function readPalette(bytes: Buffer, at: number, size: number): void {
  for (let i = 0; i < size; i++) palette[i] = word(bytes, at + i * cpixelBytes);
}

/** Sub-encodings 2–16: a palette, then rows of 1-, 2- or 4-bit indexes, each row byte-aligned. */
function packedPalette(
  bytes: Buffer,
  at: number,
  size: number,
  width: number,
  height: number,
  out: Uint32Array,
): number | undefined {
  const bits = size === 2 ? 1 : size <= 4 ? 2 : 4;
  const rowBytes = Math.ceil((width * bits) / 8);
  const indexesAt = at + size * cpixelBytes;
  const end = indexesAt + rowBytes * height;
  if (end > bytes.length) return undefined;
  readPalette(bytes, at, size);
  const mask = (1 << bits) - 1;
  let pixel = 0;
  for (let row = 0; row < height; row++) {
    let from = indexesAt + row * rowBytes;
    let byte = 0;
    let left = 0;
    for (let column = 0; column < width; column++) {
      if (left === 0) {
        byte = bytes[from++]!;
        left = 8;
      }
      left -= bits;
      const index = (byte >> left) & mask;
      if (index >= size) throw paletteError(index, size);
      out[pixel++] = palette[index]!;
    }
  }
  return end;
}

/** Sub-encoding 128: runs of (CPIXEL, run length). */
function plainRle(bytes: Buffer, at: number, pixels: number, out: Uint32Array): number | undefined {
  let pixel = 0;
  while (pixel < pixels) {
    if (at + cpixelBytes > bytes.length) return undefined;
    const colour = word(bytes, at);
    const run = runLength(bytes, at + cpixelBytes, pixels - pixel);
    if (run === undefined) return undefined;
    fillWords(out, pixel, pixel + runLengthFound, colour);
    pixel += runLengthFound;
    at = run;
  }
  return at;
}

/** Sub-encodings 130–255: a palette, then indexes, each with a run length if its top bit is set. */
function paletteRle(
  bytes: Buffer,
  at: number,
  size: number,
  pixels: number,
  out: Uint32Array,
): number | undefined {
  if (at + size * cpixelBytes > bytes.length) return undefined;
  readPalette(bytes, at, size);
  at += size * cpixelBytes;
  let pixel = 0;
  while (pixel < pixels) {
    if (at >= bytes.length) return undefined;
    const byte = bytes[at++]!;
    const index = byte & 0x7f;
    if (index >= size) throw paletteError(index, size);
    if ((byte & 0x80) === 0) {
      out[pixel++] = palette[index]!;
      continue;
    }
    const next = runLength(bytes, at, pixels - pixel);
    if (next === undefined) return undefined;
    fillWords(out, pixel, pixel + runLengthFound, palette[index]!);
    pixel += runLengthFound;
    at = next;
  }
  return at;
}

/** `out.fill`, which costs more than a loop for the short runs most tiles are made of. */
function fillWords(out: Uint32Array, from: number, to: number, colour: number): void {
  if (to - from > 32) {
    out.fill(colour, from, to);
    return;
  }
  for (let pixel = from; pixel < to; pixel++) out[pixel] = colour;
}

/** The length `runLength` last read (kept here so reading a run allocates nothing). */
let runLengthFound = 0;

/**
 * Reads a run length: bytes of 255 add up until one below 255 ends it; the run is 1 + their
 * sum. Returns where the run's bytes end (the length is left in `runLengthFound`), or undefined
 * when `bytes` ends first. A run past the `left` pixels of the tile fails at once, so a stream of
 * 255s is never scanned far.
 */
function runLength(bytes: Buffer, at: number, left: number): number | undefined {
  let length = 1;
  for (;;) {
    if (at >= bytes.length) return undefined;
    const byte = bytes[at++]!;
    length += byte;
    if (length > left) throw runError();
    if (byte !== 255) {
      runLengthFound = length;
      return at;
    }
  }
}

const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** The CPIXEL at `at` as an opaque RGBA word, laid out R, G, B, A in memory. */
function word(bytes: Buffer, at: number): number {
  const r = bytes[at]!;
  const g = bytes[at + 1]!;
  const b = bytes[at + 2]!;
  return littleEndian
    ? (r | (g << 8) | (b << 16) | 0xff000000) >>> 0
    : ((r << 24) | (g << 16) | (b << 8) | 0xff) >>> 0;
}

const paletteError = (index: number, size: number) =>
  new RfbProtocolError(`a ZRLE palette index ${index} past its palette of ${size} colours`);
const runError = () => new RfbProtocolError('a ZRLE run longer than what is left of its tile');
