import { PaintLog, type DeferredPaint, type PaintTarget } from './paint-log.js';
import { rfbLimits } from './protocol.js';
import { RfbProtocolError } from './rfb-errors.js';

// The interface lives with the recorder, on the platform: every desktop protocol decodes into it.
export type {
  FramebufferSource,
  Rect,
} from '../../../modules/desktop-recordings/framebuffer-source.js';
import type {
  FramebufferSource,
  Rect,
} from '../../../modules/desktop-recordings/framebuffer-source.js';

/**
 * Largest width and height the proxy keeps a copy of (the connect socket's own limit): an RGBA
 * copy of 8192×8192 is already 256 MiB.
 */
export const maxScreenSide = 8192;

/**
 * The decoded screen. The decoders write into it rectangle by rectangle; `endUpdate` tells the
 * listeners once a whole FramebufferUpdate is in. `pixels()` is the live buffer, not a copy:
 * read it inside a listener (or copy it) and never write to it.
 *
 * Some paints are deferred (`defer`: Tight's JPEG, palette and fill rectangles, paint-log.ts):
 * they are drawn when the pixels are read, or before any other change, so the copy is always
 * what the paints so far make, in their order, whoever reads it.
 */
export class Framebuffer implements FramebufferSource {
  #width = 0;
  #height = 0;
  #pixels = new Uint8Array(0);
  /** The same memory as `#pixels`, a pixel a word (decoders write whole pixels). */
  #words = new Uint32Array(0);
  readonly #updateListeners = new Set<(rects: Rect[]) => void>();
  readonly #resizeListeners = new Set<(width: number, height: number) => void>();
  readonly #deferred = new PaintLog();
  readonly #paintFailureListeners = new Set<(error: Error) => void>();

  constructor(width: number, height: number) {
    this.#allocate(width, height);
  }

  get width(): number {
    return this.#width;
  }
  get height(): number {
    return this.#height;
  }
  pixels(): Uint8Array {
    this.#settle();
    return this.#pixels;
  }

  /**
   * Takes a paint to draw when the screen is next read (or changed otherwise). When the paints
   * waiting hold over `rfbLimits.deferredPaintBytes`, those later ones cover are forgotten, and
   * if that is not enough, the ready ones are drawn now.
   */
  defer(paint: DeferredPaint): void {
    this.#deferred.add(paint);
    if (this.#deferred.bytes <= rfbLimits.deferredPaintBytes) return;
    this.#deferred.compact(this.#target());
    if (this.#deferred.bytes > rfbLimits.deferredPaintBytes) this.#settle();
  }

  /**
   * Decodes, off the event loop, the deferred paints a read now would draw (JPEG, on its
   * thread), and resolves with a reader of the screen as those paints make it: paints that
   * come meanwhile stay deferred for the next read (their updates come after it), so the read
   * only copies. The recorder reads this way. Undefined when nothing is deferred; never rejects.
   */
  prepare(): Promise<() => Uint8Array> | undefined {
    if (this.#deferred.length === 0) return undefined;
    const mark = this.#deferred.mark;
    const read = () => {
      this.#settle(mark);
      return this.#pixels;
    };
    return (this.#deferred.prepare(this.#target()) ?? Promise.resolve()).then(() => read);
  }

  /** Deferred paints whose data does not decode, found when they are drawn. */
  onPaintFailure(listener: (error: Error) => void): () => void {
    this.#paintFailureListeners.add(listener);
    return () => this.#paintFailureListeners.delete(listener);
  }

  onUpdate(listener: (rects: Rect[]) => void): () => void {
    this.#updateListeners.add(listener);
    return () => this.#updateListeners.delete(listener);
  }
  onResize(listener: (width: number, height: number) => void): () => void {
    this.#resizeListeners.add(listener);
    return () => this.#resizeListeners.delete(listener);
  }

  /** A new size; what was on screen stays where it still fits (the desktop repaints it anyway). */
  resize(width: number, height: number): void {
    if (width === this.#width && height === this.#height) return;
    this.#settle();
    const old = this.#pixels;
    const oldWidth = this.#width;
    const keptRows = Math.min(this.#height, height);
    const keptRowBytes = Math.min(oldWidth, width) * 4;
    this.#allocate(width, height);
    for (let row = 0; row < keptRows; row++) {
      const from = row * oldWidth * 4;
      this.#pixels.set(old.subarray(from, from + keptRowBytes), row * width * 4);
    }
    for (const listener of this.#resizeListeners) listener(width, height);
  }

  /** Throws unless `rect` lies inside the screen (a desktop must never draw outside it). */
  checkInside(rect: Rect, what: string): void {
    if (rect.x + rect.width > this.#width || rect.y + rect.height > this.#height) {
      throw new RfbProtocolError(
        `${what} at ${rect.x},${rect.y} of ${rect.width}×${rect.height} going past the ${this.#width}×${this.#height} screen`,
      );
    }
  }

  /** Copies RGBA rows (`rect.width * 4` bytes each) into `rect`. */
  putRgba(rect: Rect, rgba: Uint8Array): void {
    if (this.#deferred.length > 0) this.#settle();
    const rowBytes = rect.width * 4;
    for (let row = 0; row < rect.height; row++) {
      const to = ((rect.y + row) * this.#width + rect.x) * 4;
      this.#pixels.set(rgba.subarray(row * rowBytes, (row + 1) * rowBytes), to);
    }
  }

  /**
   * Copies `rect.width * rect.height` pixels, one RGBA word each (laid out R, G, B, A in
   * memory), into `rect`, row by row. Word by word, not `set` on subarrays: ZRLE puts 64-pixel
   * rows, for which making two views a row cost more than the copy.
   */
  putWords(rect: Rect, words: Uint32Array): void {
    if (this.#deferred.length > 0) this.#settle();
    const target = this.#words;
    const { width, height } = rect;
    let from = 0;
    for (let row = 0; row < height; row++) {
      let to = (rect.y + row) * this.#width + rect.x;
      const end = from + width;
      while (from < end) target[to++] = words[from++]!;
    }
  }

  /** Paints `rect` one colour. */
  fill(rect: Rect, red: number, green: number, blue: number): void {
    if (this.#deferred.length > 0) this.#settle();
    const pixels = this.#pixels;
    for (let row = 0; row < rect.height; row++) {
      let at = ((rect.y + row) * this.#width + rect.x) * 4;
      for (let column = 0; column < rect.width; column++, at += 4) {
        pixels[at] = red;
        pixels[at + 1] = green;
        pixels[at + 2] = blue;
        pixels[at + 3] = 255;
      }
    }
  }

  /** CopyRect: `rect` takes what was at (`fromX`, `fromY`); the two may overlap. */
  copy(rect: Rect, fromX: number, fromY: number): void {
    if (this.#deferred.length > 0) this.#settle();
    const rowBytes = rect.width * 4;
    const stride = this.#width * 4;
    // Moving down, copy the bottom row first so no source row is overwritten before it is read.
    const downwards = rect.y > fromY;
    for (let i = 0; i < rect.height; i++) {
      const row = downwards ? rect.height - 1 - i : i;
      const from = (fromY + row) * stride + fromX * 4;
      this.#pixels.copyWithin((rect.y + row) * stride + rect.x * 4, from, from + rowBytes);
    }
  }

  /** Tells the listeners that one FramebufferUpdate is complete. */
  endUpdate(rects: Rect[]): void {
    if (rects.length === 0) return;
    for (const listener of this.#updateListeners) listener(rects);
  }

  /**
   * Draws the deferred paints that are ready. The reader makes every paint ready before it
   * changes the screen any other way (server-messages.ts), so none is ever drawn out of order.
   */
  #settle(mark?: number): void {
    if (this.#deferred.length === 0) return;
    const onFailure = (error: Error) => {
      for (const listener of this.#paintFailureListeners) listener(error);
    };
    this.#deferred.settle(this.#target(), onFailure, mark);
  }

  #target(): PaintTarget {
    return { width: this.#width, height: this.#height, pixels: this.#pixels, words: this.#words };
  }

  #allocate(width: number, height: number): void {
    if (width > maxScreenSide || height > maxScreenSide) {
      throw new RfbProtocolError(
        `a screen of ${width}×${height}, over the limit of ${maxScreenSide}×${maxScreenSide}`,
      );
    }
    this.#width = width;
    this.#height = height;
    this.#pixels = new Uint8Array(width * height * 4);
    this.#words = new Uint32Array(this.#pixels.buffer);
    // Opaque black until the desktop paints: alpha is always 255.
    for (let at = 3; at < this.#pixels.length; at += 4) this.#pixels[at] = 255;
  }
}
