import { describe, expect, it } from 'vitest';
import { Framebuffer } from './framebuffer.js';
import { RawRectWriter } from './raw-rect.js';

/** A framebuffer whose pixel i has red = i, so moves are easy to see. */
function numbered(width: number, height: number): Framebuffer {
  const framebuffer = new Framebuffer(width, height);
  for (let i = 0; i < width * height; i++) framebuffer.pixels()[i * 4] = i;
  return framebuffer;
}
const reds = (framebuffer: Framebuffer) =>
  Array.from(
    { length: framebuffer.width * framebuffer.height },
    (_, i) => framebuffer.pixels()[i * 4],
  );

describe('Framebuffer', () => {
  it('starts opaque black', () => {
    expect([...new Framebuffer(2, 1).pixels()]).toEqual([0, 0, 0, 255, 0, 0, 0, 255]);
  });

  it('copies overlapping rectangles downwards and upwards as if from a snapshot', () => {
    const down = numbered(3, 4);
    down.copy({ x: 0, y: 1, width: 3, height: 3 }, 0, 0);
    expect(reds(down)).toEqual([0, 1, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const up = numbered(3, 4);
    up.copy({ x: 1, y: 0, width: 2, height: 3 }, 0, 1);
    expect(reds(up)).toEqual([0, 3, 4, 3, 6, 7, 6, 9, 10, 9, 10, 11]);
  });

  it('puts words into a rectangle row by row, and still after a resize', () => {
    // Words laid out R, G, B, A in memory, as the decoders make them, whatever the byte order.
    const words = (...red: number[]) => {
      const out = new Uint32Array(red.length);
      new Uint8Array(out.buffer).set(red.flatMap((r) => [r, 0, 0, 255]));
      return out;
    };
    const framebuffer = numbered(4, 3);
    framebuffer.putWords({ x: 1, y: 1, width: 2, height: 2 }, words(20, 21, 22, 23));
    expect(reds(framebuffer)).toEqual([0, 1, 2, 3, 4, 20, 21, 7, 8, 22, 23, 11]);
    framebuffer.resize(5, 2);
    framebuffer.putWords({ x: 3, y: 0, width: 2, height: 2 }, words(30, 31, 32, 33));
    expect(reds(framebuffer)).toEqual([0, 1, 2, 30, 31, 4, 20, 21, 32, 33]);
  });

  it('keeps what still fits on a resize', () => {
    const framebuffer = numbered(3, 2);
    framebuffer.resize(2, 3);
    expect(reds(framebuffer)).toEqual([0, 1, 3, 4, 0, 0]);
  });

  it('writes Raw pixels arriving in pieces of any size, with opaque alpha', () => {
    const framebuffer = new Framebuffer(4, 3);
    const rect = { x: 1, y: 1, width: 2, height: 2 };
    const writer = new RawRectWriter(rect, framebuffer);
    const bytes = Buffer.from([1, 2, 3, 0, 4, 5, 6, 0, 7, 8, 9, 0, 10, 11, 12, 0]);
    for (const piece of [bytes.subarray(0, 3), bytes.subarray(3, 9), bytes.subarray(9)]) {
      writer.write(piece);
    }
    const at = (x: number, y: number) => [
      ...framebuffer.pixels().subarray((y * 4 + x) * 4, (y * 4 + x) * 4 + 4),
    ];
    expect([at(1, 1), at(2, 1), at(1, 2), at(2, 2)]).toEqual([
      [1, 2, 3, 255],
      [4, 5, 6, 255],
      [7, 8, 9, 255],
      [10, 11, 12, 255],
    ]);
    expect(at(0, 1)).toEqual([0, 0, 0, 255]);
  });
});
