import type { DesktopPlaybackFrame, DesktopRecordingEvent } from '@postern/contracts';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { MemoryBlobStore } from '../../blobs/memory-blob-store.testkit.js';
import { readDesktopIndex, type DesktopRecordingIndex } from './desktop-recording-blobs.js';
import { startDesktopRecording } from './desktop-recorder.js';
import { DesktopPlayer } from './desktop-player.js';
import {
  noise,
  readEvents,
  replay,
  TestScreen,
  virtualClock,
  waitForChunks,
  type Replayed,
} from './desktop-recording.testkit.js';

const sid = '4d5e6f70-1111-4222-8333-944455556666';
let blobs: MemoryBlobStore;
let index: DesktopRecordingIndex;
let all: DesktopRecordingEvent[];

/** Three seconds of a 64×48 screen: a write every 150 ms, a resize, keyframes every second. */
beforeAll(async () => {
  const clock = virtualClock();
  const screen = new TestScreen(64, 48, clock.now);
  blobs = new MemoryBlobStore();
  const recording = startDesktopRecording({
    sid,
    framebuffer: screen,
    blobs,
    now: clock.now,
    participants: ['alice'],
    keyframeIntervalMs: 1000,
  });
  for (let step = 1; step <= 20; step++) {
    clock.advance(150);
    if (step === 9) screen.resize(48, 40);
    screen.paint({ x: step * 2, y: step, width: 16, height: 8 }, noise(step));
    await waitForChunks(blobs, sid, step + 1);
  }
  clock.advance(50);
  await recording.close(clock.now());
  index = (await readDesktopIndex(blobs, sid))!;
  all = await readEvents(blobs, index);
});

function sink(buffered = () => 0) {
  const frames: DesktopPlaybackFrame[] = [];
  return {
    frames,
    events: () => frames.flatMap((f) => (typeof f.message === 'object' ? [f.message] : [])),
    send: (frame: DesktopPlaybackFrame) => void frames.push(frame),
    buffered,
  };
}

const pixelsOf = (canvas: Replayed) => ({
  size: `${canvas.width}x${canvas.height}`,
  same: (other: Replayed) => Buffer.from(canvas.pixels).equals(Buffer.from(other.pixels)),
});

describe('DesktopPlayer', () => {
  it('answers a seek anywhere with the pixels of playing from the start to there', async () => {
    const out = sink();
    const player = new DesktopPlayer({ blobs, index, sink: out });
    player.start(false);
    for (let pos = 0; pos <= index.durationMs + 100; pos += 97) {
      await vi.waitFor(() => expect(out.frames.length).toBeGreaterThan(0));
      out.frames.length = 0;
      player.act({ action: 'seek', pos });
      const at = Math.min(pos, index.durationMs);
      const keyframe = index.keyframes.findLast((k) => k.ms <= at)!;
      const sent = (await readEvents(blobs, index, keyframe.at)).filter((e) => e.ms <= at);
      const expected = keyframe.at > 0 ? sent.length + 1 : sent.length;
      await vi.waitFor(() => expect(out.events()).toHaveLength(expected));
      const fromStart = replay(all.filter((e) => e.ms <= at));
      const seeked = replay(out.events());
      expect(pixelsOf(seeked).size, `at ${pos}`).toBe(pixelsOf(fromStart).size);
      expect(pixelsOf(seeked).same(fromStart), `at ${pos}`).toBe(true);
      // Drawn from its keyframe: the first rectangle is the whole screen.
      expect(out.events().find((e) => e.type === 'rect')).toMatchObject({ keyframe: true });
    }
    player.close();
  });

  it('plays in real time times the speed, pauses, and ends with "end"', async () => {
    const out = sink();
    const player = new DesktopPlayer({ blobs, index, sink: out });
    const started = performance.now();
    player.start();
    player.act({ action: 'speed', speed: 100 }); // clamped to 16: 3.05 s in about 190 ms
    await vi.waitFor(() => expect(out.frames.at(-1)).toEqual({ message: 'end' }), 3000);
    const took = performance.now() - started;
    expect(took).toBeGreaterThan(index.durationMs / 16 - 30);
    expect(took).toBeLessThan(1500);
    expect(out.events()).toEqual(all);
    const times = out.events().map((e) => e.ms);
    expect(times).toEqual([...times].sort((a, b) => a - b));

    // Playing again after the end starts over; a pause holds it still.
    out.frames.length = 0;
    player.act({ action: 'play/pause' });
    await vi.waitFor(() => expect(out.events().length).toBeGreaterThan(2));
    player.act({ action: 'play/pause' });
    const held = out.frames.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(out.frames.length).toBe(held);
    expect(out.frames).not.toContainEqual({ message: 'end' });
    player.act({ action: 'play/pause' });
    player.act({ action: 'speed', speed: 16 });
    await vi.waitFor(() => expect(out.frames.at(-1)).toEqual({ message: 'end' }), 3000);
    player.close();
  });

  it('sends nothing more while its client reads nothing (a stuck client holds no more)', async () => {
    let buffered = 64 * 1024 * 1024;
    const out = sink(() => buffered);
    const player = new DesktopPlayer({ blobs, index, sink: out, highWaterBytes: 1024 * 1024 });
    player.start();
    player.act({ action: 'speed', speed: 16 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(out.frames).toEqual([]);
    buffered = 0;
    await vi.waitFor(() => expect(out.frames.at(-1)).toEqual({ message: 'end' }), 3000);
    player.close();
  });

  it('says so when the recording is damaged, after the events before the damage', async () => {
    const damagedBlobs = new MemoryBlobStore();
    for (const name of await blobs.list()) await damagedBlobs.put(name, (await blobs.get(name))!);
    const name = `${sid}.desktop.events`;
    const bytes = (await damagedBlobs.get(name))!;
    const at = index.keyframes[1]!.at + 20;
    bytes[at] = bytes[at]! ^ 0xff;
    await damagedBlobs.put(name, bytes);
    const out = sink();
    const player = new DesktopPlayer({ blobs: damagedBlobs, index, sink: out });
    player.start();
    player.act({ action: 'speed', speed: 16 });
    await vi.waitFor(() => expect(out.frames.at(-1)).toEqual({ message: 'end' }), 3000);
    expect(out.frames.at(-2)).toEqual({
      message: 'error',
      errorText: expect.stringMatching(/damaged/),
    });
    expect(out.events()).toEqual(all.filter((e) => e.ms < index.keyframes[1]!.ms));
    player.close();
  });
});
