import type { Rect } from './framebuffer-source.js';

/** Two rectangles are merged when their bounding box wastes no more than this many pixels. */
const mergeSlackPixels = 64 * 64;

/**
 * The screen's damage since the last write: a few rectangles, never more than `maxRects`.
 * A rectangle is merged into one it touches or nears (their bounding box adds little that did
 * not change); past `maxRects`, the two whose bounding box wastes least are merged. So a burst of
 * small updates (a typed word, a blinking cursor, a moving pointer) costs a few rectangles, and
 * a moving window one or two, not one rectangle per update.
 */
export class Damage {
  private rects: Rect[] = [];

  constructor(private readonly maxRects = 8) {}

  get empty(): boolean {
    return this.rects.length === 0;
  }

  /** Pixels covered (rectangles never overlap after merging, except by a merge's slack). */
  get area(): number {
    return this.rects.reduce((sum, r) => sum + r.width * r.height, 0);
  }

  /** Adds a changed rectangle, clipped to a `width`×`height` screen. */
  add(rect: Rect, width: number, height: number): void {
    let next = clip(rect, width, height);
    if (!next) return;
    for (let merged = true; merged;) {
      merged = false;
      for (let i = 0; i < this.rects.length; i++) {
        const other = this.rects[i]!;
        if (waste(next, other) > mergeSlackPixels) continue;
        next = union(next, other);
        this.rects.splice(i, 1);
        merged = true;
        break;
      }
    }
    this.rects.push(next);
    if (this.rects.length > this.maxRects) this.mergeCheapestPair();
  }

  /** The damage, and none left. */
  take(): Rect[] {
    const rects = this.rects;
    this.rects = [];
    return rects;
  }

  clear(): void {
    this.rects = [];
  }

  private mergeCheapestPair(): void {
    let best = { i: 0, j: 1, waste: Infinity };
    for (let i = 0; i < this.rects.length; i++) {
      for (let j = i + 1; j < this.rects.length; j++) {
        const cost = waste(this.rects[i]!, this.rects[j]!);
        if (cost < best.waste) best = { i, j, waste: cost };
      }
    }
    const merged = union(this.rects[best.i]!, this.rects[best.j]!);
    this.rects.splice(best.j, 1);
    this.rects.splice(best.i, 1);
    // Merging may make it overlap others: added again, it merges on with them.
    this.add(merged, Infinity, Infinity);
  }
}

/** The part of `rect` on the screen, with whole pixels, or undefined when none is. */
export function clip(rect: Rect, width: number, height: number): Rect | undefined {
  const x = Math.max(0, Math.floor(rect.x));
  const y = Math.max(0, Math.floor(rect.y));
  const right = Math.min(width, Math.ceil(rect.x + rect.width));
  const bottom = Math.min(height, Math.ceil(rect.y + rect.height));
  if (!(right > x && bottom > y)) return undefined;
  return { x, y, width: right - x, height: bottom - y };
}

export function union(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  const right = Math.max(a.x + a.width, b.x + b.width);
  const bottom = Math.max(a.y + a.height, b.y + b.height);
  return { x, y, width: right - x, height: bottom - y };
}

/** Pixels the bounding box of `a` and `b` covers that neither does (overlap counted once). */
function waste(a: Rect, b: Rect): number {
  const box = union(a, b);
  const overlapW = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const overlapH = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  const overlap = overlapW > 0 && overlapH > 0 ? overlapW * overlapH : 0;
  return box.width * box.height - (a.width * a.height + b.width * b.height - overlap);
}
