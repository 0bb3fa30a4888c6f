import { RfbProtocolError } from './rfb-errors.js';

/** RFC 6143 §7.4 PIXEL_FORMAT. */
export interface PixelFormat {
  bitsPerPixel: number;
  depth: number;
  bigEndian: boolean;
  trueColour: boolean;
  redMax: number;
  greenMax: number;
  blueMax: number;
  redShift: number;
  greenShift: number;
  blueShift: number;
}

/**
 * The one format the proxy asks every desktop for and keeps every browser at: 32 bits, true
 * colour, little-endian, red in the low byte. In memory each pixel is then R, G, B, (unused):
 * RGBA order, so decoding is copying three bytes, and ZRLE's 3-byte CPIXELs are R, G, B. It is
 * also exactly what noVNC asks for (its SetPixelFormat at depth 24), so noVNC needs no
 * translation at all.
 */
export const proxyPixelFormat: PixelFormat = {
  bitsPerPixel: 32,
  depth: 24,
  bigEndian: false,
  trueColour: true,
  redMax: 255,
  greenMax: 255,
  blueMax: 255,
  redShift: 0,
  greenShift: 8,
  blueShift: 16,
};

export const pixelFormatBytes = 16;

export function encodePixelFormat(format: PixelFormat): Buffer {
  const bytes = Buffer.alloc(pixelFormatBytes);
  bytes[0] = format.bitsPerPixel;
  bytes[1] = format.depth;
  bytes[2] = format.bigEndian ? 1 : 0;
  bytes[3] = format.trueColour ? 1 : 0;
  bytes.writeUInt16BE(format.redMax, 4);
  bytes.writeUInt16BE(format.greenMax, 6);
  bytes.writeUInt16BE(format.blueMax, 8);
  bytes[10] = format.redShift;
  bytes[11] = format.greenShift;
  bytes[12] = format.blueShift;
  return bytes;
}

export function decodePixelFormat(bytes: Buffer, at = 0): PixelFormat {
  const format: PixelFormat = {
    bitsPerPixel: bytes[at]!,
    depth: bytes[at + 1]!,
    bigEndian: bytes[at + 2] !== 0,
    trueColour: bytes[at + 3] !== 0,
    redMax: bytes.readUInt16BE(at + 4),
    greenMax: bytes.readUInt16BE(at + 6),
    blueMax: bytes.readUInt16BE(at + 8),
    redShift: bytes[at + 10]!,
    greenShift: bytes[at + 11]!,
    blueShift: bytes[at + 12]!,
  };
  if (![8, 16, 32].includes(format.bitsPerPixel)) {
    throw new RfbProtocolError(`a pixel format of ${format.bitsPerPixel} bits per pixel`);
  }
  return format;
}

/**
 * Whether `format` puts the same bytes in memory as the proxy's: 32-bit true colour with 8-bit
 * channels at bytes 0, 1, 2 for red, green, blue. A big-endian format with shifts 24, 16, 8 is
 * the same layout written the other way round, so it passes too.
 */
export function sameLayoutAsProxy(format: PixelFormat): boolean {
  if (format.bitsPerPixel !== 32 || !format.trueColour) return false;
  if (format.redMax !== 255 || format.greenMax !== 255 || format.blueMax !== 255) return false;
  const byteOf = (shift: number) =>
    shift % 8 !== 0 ? -1 : format.bigEndian ? 3 - shift / 8 : shift / 8;
  return (
    byteOf(format.redShift) === 0 &&
    byteOf(format.greenShift) === 1 &&
    byteOf(format.blueShift) === 2
  );
}

export function describePixelFormat(format: PixelFormat): string {
  if (!format.trueColour) return `${format.bitsPerPixel}-bit colour map`;
  const order = format.bigEndian ? 'big-endian' : 'little-endian';
  return `${format.bitsPerPixel}-bit ${order} true colour (depth ${format.depth}, shifts ${format.redShift}/${format.greenShift}/${format.blueShift})`;
}
