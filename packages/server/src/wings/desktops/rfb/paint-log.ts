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
  /** The paints in order, each with its place in the order of all paints ever added. */
  #entries: { paint: DeferredPaint; seq: number }[] = [];
  #added = 0;
  #bytes = 0;
  /**
   * The mark of a prepare whose read has not come yet: compacting leaves the paints up to it
   * as they are, or the read would find paints visible that were never prepared.
   */
  #pinned = 0;
  /** One byte a pixel: set where a later paint covers the screen (reused between settles). */
  #covered = new Uint8Array(0);

  get length(): number {
    return this.#entries.length;
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** Where the log stands: `settle(…, mark)` draws no paint added after it. */
  get mark(): number {
    return this.#added;
  }

  add(paint: DeferredPaint): void {
    this.#entries.push({ paint, seq: ++this.#added });
    this.#bytes += paint.bytes;
  }

  /**
   * Forgets the ready paints that later ones cover whole, drawing nothing: what a log nobody
   * read for a while does first when it grows past its bound (a busy screen repaints itself).
   */
  compact(target: PaintTarget): void {
    const ready = this.#readyCount();
    let from = 0;
    while (from < ready && this.#entries[from]!.seq <= this.#pinned) from++;
    if (ready - from < 2) return;
    this.#keep([
      ...this.#entries.slice(0, from),
      ...this.#visible(target, from, ready),
      ...this.#entries.slice(ready),
    ]);
  }

  /**
   * Readies, off the event loop, the ready paints that a settle now would draw, for a
   * `settle(…, mark)` with the mark it reads now.
   */
  prepare(target: PaintTarget): Promise<void> | undefined {
    this.#pinned = this.#added;
    const waits: Promise<void>[] = [];
    for (const { paint } of this.#visible(target, 0, this.#readyCount())) {
      if (paint.prepare) waits.push(paint.prepare());
    }
    return waits.length > 0 ? Promise.all(waits).then(() => undefined) : undefined;
  }

  /**
   * Draws the ready paints, oldest first, up to `mark` (all, without it), leaving the first one
   * not ready and those after it. A paint covered whole by later ones is skipped. A paint that
   * throws is reported to `onFailure` and the others are drawn.
   */
  settle(target: PaintTarget, onFailure: (error: Error) => void, mark = Infinity): void {
    let count = this.#readyCount();
    while (count > 0 && this.#entries[count - 1]!.seq > mark) count--;
    if (mark >= this.#pinned) this.#pinned = 0;
    if (count === 0) return;
    const drawn = this.#visible(target, 0, count);
    this.#keep(this.#entries.slice(count));
    for (const { paint } of drawn) {
      try {
        paint.paint(target);
      } catch (error) {
        onFailure(error as Error);
      }
    }
  }

  #keep(entries: { paint: DeferredPaint; seq: number }[]): void {
    this.#entries = entries;
    this.#bytes = entries.reduce((sum, entry) => sum + entry.paint.bytes, 0);
  }

  #readyCount(): number {
    let ready = 0;
    while (ready < this.#entries.length && this.#entries[ready]!.paint.ready) ready++;
    return ready;
  }

  /** The paints from `from` to `to` less those later ones among them cover, oldest first. */
  #visible(target: PaintTarget, from: number, to: number) {
    if (to - from <= 1) return this.#entries.slice(from, to);
    const area = target.width * target.height;
    if (this.#covered.length !== area) this.#covered = new Uint8Array(area);
    const covered = this.#covered;
    covered.fill(0);
    const kept: { paint: DeferredPaint; seq: number }[] = [];
    for (let i = to - 1; i >= from; i--) {
      const entry = this.#entries[i]!;
      if (isCovered(covered, target.width, entry.paint.rect)) continue;
      kept.push(entry);
      cover(covered, target.width, entry.paint.rect);
    }
    return kept.reverse();
  }
}

function isCovered(covered: Uint8Array, stride: number, rect: Rect): boolean {
  for (let row = 0; row < rect.height; row++) {
    const start = (rect.y + row) * stride + rect.x;
    // Searched within the row: indexOf from `start` alone would run on to the mask's end.
    if (covered.subarray(start, start + rect.width).includes(0)) return false;
  }
  return true;
}

function cover(covered: Uint8Array, stride: number, rect: Rect): void {
  for (let row = 0; row < rect.height; row++) {
    const start = (rect.y + row) * stride + rect.x;
    covered.fill(1, start, start + rect.width);
  }
}
