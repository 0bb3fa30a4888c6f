import { describe, expect, it } from 'vitest';
import { Framebuffer } from './framebuffer.js';
import { PaintLog, type DeferredPaint, type PaintTarget } from './paint-log.js';
import { FillPaint } from './tight-paints.js';

/** A seeded generator, so a failure can be replayed. */
function random(seed: number) {
  return (below: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % below;
  };
}

/** A fill that counts how often it was drawn. */
class CountedFill extends FillPaint {
  drawn = 0;
  override paint(target: PaintTarget): void {
    this.drawn++;
    super.paint(target);
  }
}

describe('deferred paints', () => {
  it.each([1, 2, 3, 4, 5])(
    'leave the screen as drawing every paint in order would (seed %i), with other changes between',
    (seed) => {
      const next = random(seed);
      const [width, height] = [24, 16];
      const deferred = new Framebuffer(width, height);
      const eager = new Framebuffer(width, height);
      for (let step = 0; step < 400; step++) {
        const x = next(width);
        const y = next(height);
        const rect = { x, y, width: 1 + next(width - x), height: 1 + next(height - y) };
        const colour = Buffer.from([next(256), next(256), next(256)]);
        const choice = next(10);
        if (choice < 7) {
          deferred.defer(new FillPaint(rect, colour));
          eager.fill(rect, colour[0]!, colour[1]!, colour[2]!);
        } else if (choice < 9) {
          // Changes that are not deferred draw the paints before them first.
          const fromX = next(width - rect.width + 1);
          const fromY = next(height - rect.height + 1);
          deferred.copy(rect, fromX, fromY);
          eager.copy(rect, fromX, fromY);
        } else {
          expect(deferred.pixels()).toEqual(eager.pixels());
        }
      }
      expect(deferred.pixels()).toEqual(eager.pixels());
    },
  );

  it('draws only what later paints do not cover, and waits for a paint not ready', () => {
    const framebuffer = new Framebuffer(8, 8);
    const under = new CountedFill({ x: 0, y: 0, width: 8, height: 8 }, Buffer.from([1, 1, 1]));
    const halfTop = new CountedFill({ x: 0, y: 0, width: 8, height: 4 }, Buffer.from([2, 2, 2]));
    const halfBottom = new CountedFill({ x: 0, y: 4, width: 8, height: 4 }, Buffer.from([3, 3, 3]));
    const partly = new CountedFill({ x: 2, y: 2, width: 2, height: 4 }, Buffer.from([4, 4, 4]));
    let ready = false;
    const notReady: DeferredPaint = {
      rect: { x: 0, y: 0, width: 1, height: 1 },
      bytes: 0,
      get ready() {
        return ready;
      },
      paint: (target) => target.words.fill(0xff050505, 0, 1),
    };
    for (const paint of [under, halfTop, halfBottom, partly, notReady]) framebuffer.defer(paint);
    const pixels = framebuffer.pixels();
    // The two halves cover the first paint whole: it is never drawn.
    expect([under.drawn, halfTop.drawn, halfBottom.drawn, partly.drawn]).toEqual([0, 1, 1, 1]);
    expect([...pixels.subarray(0, 3)]).toEqual([2, 2, 2]);
    ready = true;
    expect([...framebuffer.pixels().subarray(0, 3)]).toEqual([5, 5, 5]);
    expect([...framebuffer.pixels().subarray((3 * 8 + 2) * 4, (3 * 8 + 2) * 4 + 3)]).toEqual([
      4, 4, 4,
    ]);
  });

  it('reads at a prepare’s mark, and compacting meanwhile keeps what that read draws', async () => {
    const pixels = new Uint8Array(8 * 8 * 4);
    const target: PaintTarget = {
      width: 8,
      height: 8,
      pixels,
      words: new Uint32Array(pixels.buffer),
    };
    const log = new PaintLog();
    const fill = (rect: { x: number; y: number; width: number; height: number }, value: number) =>
      new CountedFill(rect, Buffer.from([value, value, value]));
    const under = fill({ x: 0, y: 0, width: 8, height: 8 }, 1);
    const top = fill({ x: 0, y: 0, width: 8, height: 4 }, 2);
    const bottom = fill({ x: 0, y: 4, width: 8, height: 4 }, 3);
    for (const paint of [under, top, bottom]) log.add(paint);
    await log.prepare(target);
    const mark = log.mark;
    const later = fill({ x: 0, y: 0, width: 8, height: 8 }, 4);
    const latest = fill({ x: 0, y: 0, width: 8, height: 8 }, 5);
    log.add(later);
    log.add(latest);
    // Compacting may forget `later` (covered by `latest`), never what the marked read draws.
    log.compact(target);
    expect(log.length).toBe(4);
    log.settle(target, (error) => expect.fail(error.message), mark);
    expect([pixels[0], pixels[8 * 8 * 4 - 4]]).toEqual([2, 3]);
    expect([under.drawn, top.drawn, bottom.drawn, later.drawn]).toEqual([0, 1, 1, 0]);
    log.settle(target, (error) => expect.fail(error.message));
    expect([pixels[0], later.drawn, latest.drawn]).toEqual([5, 0, 1]);
  });
});
