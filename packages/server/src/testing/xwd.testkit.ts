/**
 * The X Window Dump format of `xwd` and `xwud` (X11's XWDFile.h): a header of 25 big-endian
 * CARD32 fields and a window name, colour entries, then rows of pixels. Only what tests of a
 * 24-bit TrueColor screen need: 32-bit ZPixmap images.
 */

const fieldCount = 25;
const field = {
  headerSize: 0,
  pixmapWidth: 4,
  pixmapHeight: 5,
  byteOrder: 7,
  bitsPerPixel: 11,
  bytesPerLine: 12,
  redMask: 14,
  greenMask: 15,
  blueMask: 16,
  colourCount: 19,
} as const;
const colourEntryBytes = 12;

/** An `xwd` dump as RGBA rows, alpha 255. */
export function xwdToRgba(dump: Buffer): { width: number; height: number; rgba: Uint8Array } {
  const get = (index: number) => dump.readUInt32BE(index * 4);
  if (get(field.bitsPerPixel) !== 32) throw new Error('only 32-bit xwd dumps are read here');
  const width = get(field.pixmapWidth);
  const height = get(field.pixmapHeight);
  const stride = get(field.bytesPerLine);
  const littleEndian = get(field.byteOrder) === 0;
  const pixelsAt = get(field.headerSize) + get(field.colourCount) * colourEntryBytes;
  const channel = (pixel: number, mask: number) => (pixel & mask) >>> shiftOf(mask);
  const masks = [get(field.redMask), get(field.greenMask), get(field.blueMask)];
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = pixelsAt + y * stride + x * 4;
      const pixel = littleEndian ? dump.readUInt32LE(at) : dump.readUInt32BE(at);
      const to = (y * width + x) * 4;
      masks.forEach((mask, i) => (rgba[to + i] = channel(pixel, mask)));
      rgba[to + 3] = 255;
    }
  }
  return { width, height, rgba };
}

/** An RGBA image as an xwd dump (TrueColor, 24 bits deep, 32 per pixel) for `xwud` to show. */
export function rgbaToXwd(width: number, height: number, rgba: Uint8Array): Buffer {
  const name = Buffer.from('postern-test\0');
  const headerSize = fieldCount * 4 + name.length;
  const header = Buffer.alloc(headerSize);
  const values = [
    headerSize,
    7 /* version */,
    2 /* ZPixmap */,
    24,
    width,
    height,
    0,
    1 /* MSBFirst */,
    32,
    1,
    32,
    32,
    width * 4,
    4 /* TrueColor */,
    0xff0000,
    0xff00,
    0xff,
    8,
    0,
    0,
    width,
    height,
    0,
    0,
    0,
  ];
  values.forEach((value, i) => header.writeUInt32BE(value, i * 4));
  name.copy(header, fieldCount * 4);
  const pixels = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    pixels.writeUInt32BE((rgba[i * 4]! << 16) | (rgba[i * 4 + 1]! << 8) | rgba[i * 4 + 2]!, i * 4);
  }
  return Buffer.concat([header, pixels]);
}

function shiftOf(mask: number): number {
  let shift = 0;
  while (mask !== 0 && (mask & 1) === 0) {
    mask >>>= 1;
    shift++;
  }
  return shift;
}
