import type { Framebuffer } from '../rfb/framebuffer.js';
import type { Rect } from '../rfb/framebuffer.js';
import { decodeInterleavedRle } from './interleaved-rle.js';
import { decodePlanar } from './planar.js';
import { RdpProtocolError } from './rdp-wire.js';

/**
 * A slow-path Bitmap Update (MS-RDPBCGR 2.2.9.1.1.3.1.2): rectangles of pixels, bottom-up rows,
 * at 32, 24, 16 or 15 bits per pixel, uncompressed (rows padded to 4 bytes) or compressed
 * (interleaved RLE below 32 bits, planar at 32), written into the framebuffer as RGBA.
 */
export function decodeBitmapUpdate(update: Buffer, framebuffer: Framebuffer): void {
  const count = update.readUInt16LE(2);
  const rects: Rect[] = [];
  let at = 4;
  for (let i = 0; i < count; i++) {
    if (at + 18 > update.length) throw new RdpProtocolError('a bitmap update cut short');
    const left = update.readUInt16LE(at);
    const top = update.readUInt16LE(at + 2);
    const right = update.readUInt16LE(at + 4);
    const bottom = update.readUInt16LE(at + 6);
    const width = update.readUInt16LE(at + 8);
    const height = update.readUInt16LE(at + 10);
    const bpp = update.readUInt16LE(at + 12);
    const flags = update.readUInt16LE(at + 14);
    const length = update.readUInt16LE(at + 16);
    at += 18;
    const data = update.subarray(at, at + length);
    at += length;
    const rect = clip(
      { x: left, y: top, width: right - left + 1, height: bottom - top + 1 },
      framebuffer,
    );
    if (!rect) continue;
    const bytes = Math.ceil(bpp / 8);
    if (![15, 16, 24, 32].includes(bpp)) {
      throw new RdpProtocolError(`a bitmap of ${bpp} bits per pixel`);
    }
    if (flags & 0x0001) {
      // Without NO_BITMAP_COMPRESSION_HDR an 8-byte TS_CD_HEADER comes first.
      const body = flags & 0x0400 ? data : data.subarray(8);
      const pixels =
        bpp === 32
          ? decodePlanar(body, width, height)
          : decodeInterleavedRle(body, width, height, bytes as 2 | 3);
      framebuffer.putRgba(rect, toRgba(pixels, width, height, bpp, rect, width * bytes));
    } else {
      framebuffer.putRgba(rect, toRgba(data, width, height, bpp, rect, (width * bytes + 3) & ~3));
    }
    rects.push(rect);
  }
  if (rects.length > 0) framebuffer.endUpdate(rects);
}

function clip(rect: Rect, framebuffer: Framebuffer): Rect | undefined {
  const width = Math.min(rect.width, framebuffer.width - rect.x);
  const height = Math.min(rect.height, framebuffer.height - rect.y);
  return width > 0 && height > 0 ? { ...rect, width, height } : undefined;
}

/** The `rect.width`×`rect.height` top-left part of a bottom-up bitmap, as RGBA rows top-down. */
function toRgba(
  data: Buffer,
  width: number,
  height: number,
  bpp: number,
  rect: Rect,
  stride: number,
): Uint8Array {
  const bytes = Math.ceil(bpp / 8);
  if (data.length < stride * height) {
    throw new RdpProtocolError(`a bitmap of ${bpp} bits per pixel that does not fit its size`);
  }
  const out = new Uint8Array(rect.width * rect.height * 4);
  for (let y = 0; y < rect.height; y++) {
    const row = (height - 1 - y) * stride;
    for (let x = 0; x < rect.width; x++) {
      const o = (y * rect.width + x) * 4;
      const p = row + x * bytes;
      if (bytes >= 3) {
        out[o] = data[p + 2]!;
        out[o + 1] = data[p + 1]!;
        out[o + 2] = data[p]!;
      } else {
        const v = data.readUInt16LE(p);
        const [r, g, b] =
          bpp === 16
            ? [(v >> 11) & 0x1f, (v >> 5) & 0x3f, v & 0x1f]
            : [(v >> 10) & 0x1f, (v >> 5) & 0x1f, v & 0x1f];
        out[o] = (r << 3) | (r >> 2);
        out[o + 1] = bpp === 16 ? (g << 2) | (g >> 4) : (g << 3) | (g >> 2);
        out[o + 2] = (b << 3) | (b >> 2);
      }
      out[o + 3] = 255;
    }
  }
  return out;
}
