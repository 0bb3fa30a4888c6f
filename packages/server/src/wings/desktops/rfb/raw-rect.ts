import type { Framebuffer, Rect } from './framebuffer.js';

/**
 * Writes a Raw rectangle (RFC 6143 §7.7.1) into the framebuffer as its bytes arrive, so a
 * full-screen Raw update is never held whole. The proxy's pixel format stores R, G, B, unused
 * in that order, which is RGBA once the fourth byte is made opaque.
 */
export class RawRectWriter {
  readonly #rect: Rect;
  readonly #framebuffer: Framebuffer;
  readonly #rowBytes: number;
  /** Bytes of the rectangle written so far. */
  #written = 0;

  constructor(rect: Rect, framebuffer: Framebuffer) {
    this.#rect = rect;
    this.#framebuffer = framebuffer;
    this.#rowBytes = rect.width * 4;
  }

  /** Bytes the rectangle carries in all. */
  get length(): number {
    return this.#rowBytes * this.#rect.height;
  }

  write(chunk: Buffer): void {
    const pixels = this.#framebuffer.pixels();
    const stride = this.#framebuffer.width * 4;
    let at = 0;
    while (at < chunk.length) {
      const row = Math.floor(this.#written / this.#rowBytes);
      const inRow = this.#written % this.#rowBytes;
      const piece = Math.min(this.#rowBytes - inRow, chunk.length - at);
      const to = (this.#rect.y + row) * stride + this.#rect.x * 4 + inRow;
      pixels.set(chunk.subarray(at, at + piece), to);
      // The unused byte of each pixel in this piece becomes alpha.
      for (let alpha = to + 3 - (inRow % 4); alpha < to + piece; alpha += 4) {
        pixels[alpha] = 255;
      }
      at += piece;
      this.#written += piece;
    }
  }
}
