import { RdpProtocolError } from './rdp-wire.js';

/**
 * Interleaved RLE (MS-RDPBCGR 2.2.9.1.1.3.1.2.4), the compression of bitmaps at 8 to 24 bits per
 * pixel: a stream of orders (runs of the background, i.e. the pixel above; runs of a foreground
 * colour XORed over it; bitmasks choosing between the two; plain colour runs and literal pixels)
 * that decodes to `width × height` pixels of `bytes` bytes each, scanlines in the order they came
 * (bottom-up on screen, as uncompressed bitmaps). Pixels are handled as numbers up to 24 bits.
 */
export function decodeInterleavedRle(
  src: Buffer,
  width: number,
  height: number,
  bytes: 1 | 2 | 3,
): Buffer {
  const out = Buffer.alloc(width * height * bytes);
  const rowBytes = width * bytes;
  const white = bytes === 1 ? 0xff : bytes === 2 ? 0xffff : 0xffffff;
  let at = 0;
  let dest = 0;
  let fg = white;
  let insertFg = false;
  let firstLine = true;

  const readPixel = (): number => {
    if (at + bytes > src.length) throw cut();
    const value =
      bytes === 1 ? src[at]! : bytes === 2 ? src.readUInt16LE(at) : src.readUIntLE(at, 3);
    at += bytes;
    return value;
  };
  const put = (value: number) => {
    if (dest + bytes > out.length)
      throw new RdpProtocolError('an RLE bitmap that overflows its size');
    out.writeUIntLE(value, dest, bytes);
    dest += bytes;
  };
  /** The pixel one scanline back, black on the first scanline. */
  const above = () => (dest >= rowBytes ? out.readUIntLE(dest - rowBytes, bytes) : 0);
  const fgOverAbove = () => above() ^ fg;
  const fgBgImage = (mask: number, count: number) => {
    for (let bit = 0; bit < count; bit++) put(mask & (1 << bit) ? fgOverAbove() : above());
  };
  const byte = () => {
    if (at >= src.length) throw cut();
    return src[at++]!;
  };

  while (at < src.length) {
    // Leaving the first scanline forgets a pending foreground pixel (the spec's decoder does).
    if (firstLine && dest >= rowBytes) {
      firstLine = false;
      insertFg = false;
    }
    const header = byte();
    const { code, length } = runOf(header, byte);
    if (code === Code.bgRun) {
      let run = length;
      if (insertFg && run > 0) {
        put(fgOverAbove());
        run--;
      }
      for (; run > 0; run--) put(above());
      insertFg = true;
      continue;
    }
    insertFg = false;
    switch (code) {
      case Code.setFgFgRun:
      case Code.fgRun:
        if (code === Code.setFgFgRun) fg = readPixel();
        for (let run = length; run > 0; run--) put(fgOverAbove());
        break;
      case Code.ditheredRun: {
        const a = readPixel();
        const b = readPixel();
        for (let run = length; run > 0; run--) {
          put(a);
          put(b);
        }
        break;
      }
      case Code.colorRun: {
        const pixel = readPixel();
        for (let run = length; run > 0; run--) put(pixel);
        break;
      }
      case Code.setFgFgbgImage:
      case Code.fgbgImage:
        if (code === Code.setFgFgbgImage) fg = readPixel();
        for (let run = length; run > 0; run -= 8) fgBgImage(byte(), Math.min(8, run));
        break;
      case Code.colorImage:
        for (let run = length; run > 0; run--) put(readPixel());
        break;
      case Code.specialFgbg1:
        fgBgImage(0x03, 8);
        break;
      case Code.specialFgbg2:
        fgBgImage(0x05, 8);
        break;
      case Code.white:
        put(white);
        break;
      case Code.black:
        put(0);
        break;
    }
  }
  if (dest !== out.length) throw new RdpProtocolError('an RLE bitmap shorter than its size');
  return out;
}

enum Code {
  bgRun,
  fgRun,
  fgbgImage,
  colorRun,
  colorImage,
  setFgFgRun,
  setFgFgbgImage,
  ditheredRun,
  specialFgbg1,
  specialFgbg2,
  white,
  black,
}

const megaCodes: Record<number, Code> = {
  0xf0: Code.bgRun,
  0xf1: Code.fgRun,
  0xf2: Code.fgbgImage,
  0xf3: Code.colorRun,
  0xf4: Code.colorImage,
  0xf6: Code.setFgFgRun,
  0xf7: Code.setFgFgbgImage,
  0xf8: Code.ditheredRun,
};
const singleCodes: Record<number, Code> = {
  0xf9: Code.specialFgbg1,
  0xfa: Code.specialFgbg2,
  0xfd: Code.white,
  0xfe: Code.black,
};
const liteCodes: Record<number, Code> = {
  0xc: Code.setFgFgRun,
  0xd: Code.setFgFgbgImage,
  0xe: Code.ditheredRun,
};
const regularCodes = [Code.bgRun, Code.fgRun, Code.fgbgImage, Code.colorRun, Code.colorImage];

/** An order's code and its run length (in pixels; FG/BG images count bits, 8 per mask byte). */
function runOf(header: number, next: () => number): { code: Code; length: number } {
  const mega = megaCodes[header];
  if (mega !== undefined) return { code: mega, length: next() | (next() << 8) };
  const single = singleCodes[header];
  if (single !== undefined) return { code: single, length: 0 };
  const lite = liteCodes[header >> 4];
  if (lite !== undefined) {
    const bits = header & 0x0f;
    if (lite === Code.setFgFgbgImage) return { code: lite, length: bits ? bits * 8 : next() + 1 };
    return { code: lite, length: bits || next() + 16 };
  }
  const code = regularCodes[header >> 5];
  if (code === undefined) throw new RdpProtocolError(`an RLE order 0x${header.toString(16)}`);
  const bits = header & 0x1f;
  if (code === Code.fgbgImage) return { code, length: bits ? bits * 8 : next() + 1 };
  return { code, length: bits || next() + 32 };
}

const cut = () => new RdpProtocolError('an RLE bitmap cut short');
