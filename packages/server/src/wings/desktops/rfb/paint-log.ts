import type { Rect } from '../../../modules/desktop-recordings/framebuffer-source.js';

/** The screen a deferred paint draws into: RGBA bytes and the same memory a pixel a word. */
export interface PaintTarget {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;
  readonly words: Uint32Array;
}

/**
 * A rectangle whose pixels are worked out only when someone reads the screen (Tight's JPEG,
 * palette and fill rectangles: tight-paints.ts).
 */
export interface DeferredPaint {
  readonly rect: Rect;
  /** Bytes it holds (its JPEG, its inflated data), for the log's bound. */
  readonly bytes: number;
  /** false while its data is still on its way (a zlib stream inflating behind the reading). */
  readonly ready: boolean;
  /** Draws it; throws on data that does not decode (the session then ends). */
  paint(target: PaintTarget): void;
  /** Work that drawing it needs, done off the event loop ahead of time; never rejects. */
  prepare?(): Promise<void>;
}

/**
 * The paints the proxy's copy of the screen has taken but not drawn yet, oldest first.
 *
 * Why: a desktop speaking Tight sends most of a busy screen as JPEG (TigerVNC: about 19
 * megapixels a second of the bench's scrolling text), which costs about 80 ms a megapixel to
 * decode in JavaScript, while only the recorder reads the copy, a few times a second. So paints
 * wait here until the screen is read, and then only those that something later does not cover
 * whole are drawn: a screen that changed ten times since the last read is decoded about once.
 */
export class PaintLog {
  #paints: DeferredPaint[] = [];
  #bytes = 0;
  /** One byte a pixel: set where a later paint covers the screen (reused between settles). */
  #covered = new Uint8Array(0);

  get length(): number {
    return this.#paints.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  add(paint: DeferredPaint): void {
    this.#paints.push(paint);
    this.#bytes += paint.bytes;
  }

  /** Forgets every paint (the screen was resized: they no longer fit). */
  clear(): void {
    this.#paints = [];
    this.#bytes = 0;
  }

  /** Readies, off the event loop, the ready paints that a settle now would draw. */
  prepare(target: PaintTarget): Promise<void> | undefined {
    const waits: Promise<void>[] = [];
    for (const paint of this.#visible(target, this.#readyCount())) {
      if (paint.prepare) waits.push(paint.prepare());
    }
    return waits.length > 0 ? Promise.all(waits).then(() => undefined) : undefined;
  }

  /**
   * Draws the ready paints, oldest first, leaving the first one not ready and those after it.
   * A paint covered whole by later ones is skipped. A paint that throws is reported to
   * `onFailure` and the others are drawn.
   */
  settle(target: PaintTarget, onFailure: (error: Error) => void): void {
    const ready = this.#readyCount();
    if (ready === 0) return;
    const drawn = this.#visible(target, ready);
    const rest = this.#paints.slice(ready);
    this.#paints = rest;
    this.#bytes = rest.reduce((sum, paint) => sum + paint.bytes, 0);
    for (const paint of drawn) {
      try {
        paint.paint(target);
      } catch (error) {
        onFailure(error as Error);
      }
    }
  }

  #readyCount(): number {
    let ready = 0;
    while (ready < this.#paints.length && this.#paints[ready]!.ready) ready++;
    return ready;
  }

  /** The first `count` paints less those later ones among them cover, oldest first. */
  #visible(target: PaintTarget, count: number): DeferredPaint[] {
    if (count <= 1) return this.#paints.slice(0, count);
    const area = target.width * target.height;
    if (this.#covered.length !== area) this.#covered = new Uint8Array(area);
    const covered = this.#covered;
    covered.fill(0);
    const kept: DeferredPaint[] = [];
    for (let i = count - 1; i >= 0; i--) {
      const paint = this.#paints[i]!;
      if (isCovered(covered, target.width, paint.rect)) continue;
      kept.push(paint);
      cover(covered, target.width, paint.rect);
    }
    return kept.reverse();
  }
}

function isCovered(covered: Uint8Array, stride: number, rect: Rect): boolean {
  for (let row = 0; row < rect.height; row++) {
    const start = (rect.y + row) * stride + rect.x;
    const hole = covered.indexOf(0, start);
    if (hole !== -1 && hole < start + rect.width) return false;
  }
  return true;
}

function cover(covered: Uint8Array, stride: number, rect: Rect): void {
  for (let row = 0; row < rect.height; row++) {
    const start = (rect.y + row) * stride + rect.x;
    covered.fill(1, start, start + rect.width);
  }
}
