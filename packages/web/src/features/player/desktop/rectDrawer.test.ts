import { describe, expect, it } from 'vitest';
import { FakeSurface, solidRect as rect } from './fakeDesktop';
import { inflate } from './inflate';
import { RectDrawer } from './rectDrawer';

describe('RectDrawer', () => {
  it('blanks the surface on a screen and inflates each rectangle into it, in order', async () => {
    const surface = new FakeSurface();
    const drawer = new RectDrawer(surface, inflate);
    drawer.draw({ type: 'screen', ms: 0, width: 64, height: 48 });
    drawer.draw(await rect(0, 0, 64, 48, 7, true));
    drawer.draw(await rect(10, 20, 8, 4, 200));
    drawer.draw({ type: 'clipboard', ms: 1, direction: 'in', bytes: 3 });
    await drawer.idle();
    expect(surface.calls).toEqual([
      'resize 64x48',
      'draw 0,0 64x48 7 12288',
      'draw 10,20 8x4 200 128',
    ]);
  });

  it('skips what is queued before a keyframe, and rectangles that do not inflate', async () => {
    const surface = new FakeSurface();
    let release = () => undefined as void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The first inflate waits: everything after it queues up meanwhile.
    let first = true;
    const drawer = new RectDrawer(surface, async (bytes) => {
      if (first) {
        first = false;
        await gate;
      }
      return inflate(bytes);
    });
    drawer.draw(await rect(0, 0, 4, 4, 1));
    drawer.draw(await rect(0, 0, 4, 4, 2));
    drawer.draw({ type: 'screen', ms: 1, width: 32, height: 32 });
    drawer.draw(await rect(0, 0, 32, 32, 4, true));
    drawer.draw({ ...(await rect(0, 0, 4, 4, 3)), rgba: btoa('not deflate') });
    drawer.draw(await rect(1, 1, 2, 2, 5));
    release();
    await drawer.idle();
    expect(surface.calls).toEqual([
      'draw 0,0 4x4 1 64',
      'resize 32x32',
      'draw 0,0 32x32 4 4096',
      'draw 1,1 2x2 5 16',
    ]);
  });
});
