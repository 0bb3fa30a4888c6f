import { describe, expect, it } from 'vitest';
import { MemoryBlobStore } from '../../blobs/memory-blob-store.testkit.js';
import { readDesktopIndex } from './desktop-recording-blobs.js';
import { startDesktopRecording } from './desktop-recorder.js';
import {
  chunkCount,
  noise,
  readEvents,
  replay,
  TestScreen,
  virtualClock,
  waitForChunks,
  type Replayed,
} from './desktop-recording.testkit.js';

const sid = '0d5e6f70-1111-4222-8333-944455556666';

function recordOn(screen: TestScreen, clock: ReturnType<typeof virtualClock>, extra = {}) {
  const blobs = new MemoryBlobStore();
  const recording = startDesktopRecording({
    sid,
    framebuffer: screen,
    blobs,
    now: clock.now,
    participants: ['alice'],
    desktopName: 'win-1',
    ...extra,
  });
  return { blobs, recording };
}

const same = (replayed: Replayed, width: number, height: number, pixels: Uint8Array) =>
  replayed.width === width &&
  replayed.height === height &&
  Buffer.from(replayed.pixels).equals(Buffer.from(pixels));

/**
 * A screen whose pixels need work first (as deferred JPEG does), done only in `prepare`, and
 * which changes while that work is on: the recorder must read it as it was when prepared.
 */
class PreparedScreen extends TestScreen {
  prepared = 0;
  prepare(): Promise<() => Uint8Array> {
    const asked = this.data.slice();
    return new Promise((resolve) =>
      setTimeout(() => {
        this.prepared++;
        asked.fill(this.prepared * 10);
        this.data.fill(99);
        resolve(() => {
          this.captures.push({ at: 0, width: this.width, height: this.height, pixels: asked });
          return asked;
        });
      }, 5),
    );
  }
}

describe('a desktop recording', () => {
  it('reads the screen through its prepared reader, as it was when prepared', async () => {
    const clock = virtualClock();
    const screen = new PreparedScreen(8, 8, clock.now);
    const { blobs, recording } = recordOn(screen, clock);
    await waitForChunks(blobs, sid, 1);
    expect(screen.prepared).toBe(1);
    expect(screen.captures).toHaveLength(1);
    expect(screen.captures[0]!.pixels.every((byte) => byte === 10)).toBe(true);
    const index = await recording.close(clock.now());
    expect(index.size).toBeGreaterThan(0);
    const events = await readEvents(blobs, (await readDesktopIndex(blobs, sid))!);
    const first = replay(events.filter((event) => event.ms === 0));
    expect(first.pixels.every((byte) => byte === 10)).toBe(true);
  });

  it('replays into the pixels the framebuffer had at every write and at the end', async () => {
    const clock = virtualClock();
    const screen = new TestScreen(96, 64, clock.now);
    screen.paint({ x: 0, y: 0, width: 96, height: 64 }, noise(0));
    const { blobs, recording } = recordOn(screen, clock, { keyframeIntervalMs: 1000 });
    await waitForChunks(blobs, sid, 1);
    for (let step = 1; step <= 24; step++) {
      clock.advance(150);
      if (step === 12) screen.resize(80, 48);
      const x = (step * 13) % 60;
      screen.paint({ x, y: step % 30, width: 20, height: 10 }, noise(step));
      if (step % 3 === 0) screen.paint({ x: 70, y: 40, width: 6, height: 6 }, noise(-step));
      await waitForChunks(blobs, sid, step + 1);
    }
    clock.advance(40);
    const closed = await recording.close(clock.now());
    expect(closed.durationMs).toBe(24 * 150 + 40);

    const index = (await readDesktopIndex(blobs, sid))!;
    expect(index).toMatchObject({ incomplete: false, participants: ['alice'], width: 96 });
    expect(index.size).toBe(closed.size);
    expect(index.integrity.chunks).toBe(await chunkCount(blobs, sid));
    const events = await readEvents(blobs, index);
    expect(events[0]).toEqual({ type: 'screen', ms: 0, width: 96, height: 64 });
    expect(events[1]).toMatchObject({ type: 'rect', ms: 0, width: 96, height: 64, keyframe: true });
    expect(events.at(-1)).toEqual({ type: 'end', ms: closed.durationMs });

    // After each write's rectangles, the replay is the screen as the recorder read it.
    let canvas = replay([]);
    let compared = 0;
    const times = [...new Set(events.map((event) => event.ms))];
    for (const ms of times) {
      canvas = replay(
        events.filter((event) => event.ms === ms),
        canvas,
      );
      const capture = screen.captures.findLast((c) => c.at - screen.captures[0]!.at === ms);
      if (!capture || !events.some((e) => e.ms === ms && e.type === 'rect')) continue;
      expect(same(canvas, capture.width, capture.height, capture.pixels), `at ${ms} ms`).toBe(true);
      compared += 1;
    }
    expect(compared).toBe(25);
    expect(same(canvas, 80, 48, screen.data)).toBe(true);

    // Keyframes: the start, the resize (after its screen event), then at least every second.
    const keyframeTimes = index.keyframes.map((k) => k.ms);
    expect(keyframeTimes[0]).toBe(0);
    expect(index.keyframes).toContainEqual(expect.objectContaining({ ms: 1800, width: 80 }));
    const resize = events.findIndex((e) => e.type === 'screen' && e.width === 80);
    expect(events[resize + 1]).toMatchObject({ type: 'rect', keyframe: true, width: 80 });
    for (let i = 1; i < keyframeTimes.length; i++)
      expect(keyframeTimes[i]! - keyframeTimes[i - 1]!).toBeLessThanOrEqual(1050);
  });

  it('merges many small updates within 100 ms into one write of a few rectangles', async () => {
    const clock = virtualClock();
    const screen = new TestScreen(200, 120, clock.now);
    const { blobs, recording } = recordOn(screen, clock);
    await waitForChunks(blobs, sid, 1);
    clock.advance(20);
    for (let i = 0; i < 300; i++) {
      screen.paint({ x: (i * 7) % 190, y: (i * 11) % 110, width: 3, height: 3 }, noise(i));
      if (i % 100 === 99) clock.advance(25);
    }
    // Not due before the interval: still only the first write.
    expect(await chunkCount(blobs, sid)).toBe(1);
    clock.advance(100);
    await waitForChunks(blobs, sid, 2);
    const index = (await readDesktopIndex(blobs, sid)) ?? undefined;
    expect(index).toBeUndefined(); // not sealed while it runs
    await recording.close(clock.now());
    const events = await readEvents(blobs, (await readDesktopIndex(blobs, sid))!);
    const second = events.filter((e) => e.type === 'rect' && e.ms > 0);
    expect(new Set(second.map((e) => e.ms)).size).toBe(1);
    expect(second.length).toBeGreaterThanOrEqual(1);
    expect(second.length).toBeLessThanOrEqual(8);
    expect(same(replay(events), 200, 120, screen.data)).toBe(true);
  });

  it('records the size of what is copied, never its content', async () => {
    const clock = virtualClock();
    const screen = new TestScreen(32, 32, clock.now);
    const { blobs, recording } = recordOn(screen, clock);
    await waitForChunks(blobs, sid, 1);
    clock.advance(300);
    recording.clipboard('out', 1234);
    clock.advance(10);
    recording.clipboard('in', 56);
    await waitForChunks(blobs, sid, 2);
    await recording.close(clock.now());
    const events = await readEvents(blobs, (await readDesktopIndex(blobs, sid))!);
    expect(events.filter((e) => e.type === 'clipboard')).toEqual([
      { type: 'clipboard', ms: 300, direction: 'out', bytes: 1234 },
      { type: 'clipboard', ms: 310, direction: 'in', bytes: 56 },
    ]);
  });

  it('writes an idle screen once', async () => {
    const clock = virtualClock();
    const screen = new TestScreen(32, 32, clock.now);
    const { blobs, recording } = recordOn(screen, clock);
    await waitForChunks(blobs, sid, 1);
    clock.advance(60_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await recording.close(clock.now());
    const index = (await readDesktopIndex(blobs, sid))!;
    expect(index.keyframes).toHaveLength(1);
    expect(index.integrity.chunks).toBe(2); // the first screen, and the end
    expect(index.durationMs).toBe(60_000);
  });

  it('never ends before its last write, when told the session stopped a moment earlier', async () => {
    const clock = virtualClock();
    const screen = new TestScreen(32, 32, clock.now);
    const { blobs, recording } = recordOn(screen, clock);
    await waitForChunks(blobs, sid, 1);
    const stoppedAt = clock.now() + 500;
    clock.advance(700);
    screen.paint({ x: 0, y: 0, width: 8, height: 8 }, noise(3));
    await waitForChunks(blobs, sid, 2);
    expect(await recording.close(stoppedAt)).toMatchObject({ durationMs: 700 });
    const events = await readEvents(blobs, (await readDesktopIndex(blobs, sid))!);
    const times = events.map((e) => e.ms);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(events.at(-1)).toEqual({ type: 'end', ms: 700 });
  });
});
