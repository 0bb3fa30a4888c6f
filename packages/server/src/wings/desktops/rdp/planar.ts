import { RdpProtocolError } from './rdp-wire.js';

/**
 * Planar bitmaps (MS-RDPEGDI 2.2.2.5.1), the compression of 32-bit bitmaps: a format byte, then
 * the alpha (unless NA), red, green and blue planes of `width × height` bytes each, raw or RLE
 * (each scanline after the first as deltas from the one before). Colour loss and chroma
 * subsampling (the YCoCg planes) are not decoded. Returns BGRA pixels, scanlines in the order
 * they came (bottom-up on screen), as an uncompressed 32-bit bitmap would be.
 */
export function decodePlanar(src: Buffer, width: number, height: number): Buffer {
  if (src.length < 1) throw cut();
  const format = src[0]!;
  const colourLoss = format & 0x07;
  const rle = (format & 0x10) !== 0;
  const noAlpha = (format & 0x20) !== 0;
  if (colourLoss !== 0 || format & 0x08) {
    throw new RdpProtocolError('a planar bitmap with colour loss, which is not decoded yet');
  }
  const planeBytes = width * height;
  let at = 1;
  const planes: Buffer[] = [];
  for (let plane = noAlpha ? 1 : 0; plane < 4; plane++) {
    if (rle) {
      const decoded = decodeRlePlane(src, at, width, height);
      planes.push(decoded.plane);
      at = decoded.end;
    } else {
      if (at + planeBytes > src.length) throw cut();
      planes.push(src.subarray(at, at + planeBytes));
      at += planeBytes;
    }
  }
  const [alpha, red, green, blue] = noAlpha ? [undefined, ...planes] : planes;
  const out = Buffer.allocUnsafe(planeBytes * 4);
  for (let i = 0; i < planeBytes; i++) {
    out[i * 4] = blue![i]!;
    out[i * 4 + 1] = green![i]!;
    out[i * 4 + 2] = red![i]!;
    out[i * 4 + 3] = alpha ? alpha[i]! : 0xff;
  }
  return out;
}

/** One RLE plane (2.2.2.5.1.1): control bytes of raw counts and run lengths, per scanline. */
function decodeRlePlane(src: Buffer, start: number, width: number, height: number) {
  const plane = Buffer.alloc(width * height);
  let at = start;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let x = 0;
    let last = 0;
    while (x < width) {
      if (at >= src.length) throw cut();
      const control = src[at++]!;
      let run = control & 0x0f;
      let raw = control >> 4;
      if (run === 1) [run, raw] = [16 + raw, 0];
      else if (run === 2) [run, raw] = [32 + raw, 0];
      if (x + raw + run > width || at + raw > src.length) throw cut();
      for (; raw > 0; raw--) plane[row + x++] = last = src[at++]!;
      for (; run > 0; run--) plane[row + x++] = last;
    }
    if (y > 0) {
      // Later scanlines hold deltas from the one before, as sign and magnitude.
      for (let i = row; i < row + width; i++) {
        const value = plane[i]!;
        const delta = value & 1 ? -((value + 1) >> 1) : value >> 1;
        plane[i] = (plane[i - width]! + delta) & 0xff;
      }
    }
  }
  return { plane, end: at };
}

const cut = () => new RdpProtocolError('a planar bitmap cut short');
