import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import type { DesktopKeyframe } from './desktop-recording-blobs.js';
import type { Rect } from './framebuffer-source.js';
import type { StoredRecord } from './record-format.js';

const deflateAsync = promisify(deflate);

/** What one write takes from the screen: the records before it, and its rectangles' pixels. */
export interface Capture {
  records: StoredRecord[];
  ms: number;
  rects: Rect[];
  /** Each rectangle's RGBA rows, copied when captured (the framebuffer goes on changing). */
  copies: Buffer[];
  /** When the capture is a whole screen: its time and size. */
  keyframe: Omit<DesktopKeyframe, 'at'> | undefined;
}

/**
 * The RGBA rows of `rect`, copied out of a screen `width` pixels wide. `set` copies as memcpy
 * does; `Buffer.from(aUint8Array)` goes element by element (16 ms for a 1280×800 keyframe,
 * against 4 ms), on the event loop that relays the screen.
 */
export function copyRect(pixels: Uint8Array, width: number, rect: Rect): Buffer {
  const stride = width * 4;
  if (rect.x === 0 && rect.width === width) {
    const rows = pixels.subarray(rect.y * stride, (rect.y + rect.height) * stride);
    const out = Buffer.allocUnsafe(rows.length);
    out.set(rows);
    return out;
  }
  const rowBytes = rect.width * 4;
  const out = Buffer.allocUnsafe(rowBytes * rect.height);
  for (let row = 0; row < rect.height; row++) {
    const start = (rect.y + row) * stride + rect.x * 4;
    out.set(pixels.subarray(start, start + rowBytes), row * rowBytes);
  }
  return out;
}

/**
 * The records of a capture: each rectangle deflated on its own by zlib's asynchronous API (on
 * libuv's thread pool, in parallel), so any keyframe needs nothing before it and the event loop
 * never compresses a screen.
 */
export async function captureRecords(capture: Capture, level: number): Promise<StoredRecord[]> {
  const deflated = await Promise.all(capture.copies.map((copy) => deflateAsync(copy, { level })));
  const rects = capture.rects.map((rect, i) => ({
    type: 'rect' as const,
    ms: capture.ms,
    ...rect,
    keyframe: capture.keyframe !== undefined,
    pixels: deflated[i]!,
  }));
  return [...capture.records, ...rects];
}
