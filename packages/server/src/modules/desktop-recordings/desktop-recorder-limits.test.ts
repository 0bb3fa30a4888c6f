import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { BlobStore } from '../../blobs/blob-store.js';
import { MemoryBlobStore } from '../../blobs/memory-blob-store.testkit.js';
import { desktopBlobName, readDesktopIndex } from './desktop-recording-blobs.js';
import { startDesktopRecording } from './desktop-recorder.js';
import { chunkCount, noise, readEvents, replay, TestScreen } from './desktop-recording.testkit.js';

const sid = '1a2b3c4d-1111-4222-8333-944455556666';
const whole = (screen: TestScreen) => ({ x: 0, y: 0, width: screen.width, height: screen.height });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Paints the whole screen with fresh noise every few ms for `ms` (a video, full screen). */
async function animate(screen: TestScreen, ms: number) {
  const end = Date.now() + ms;
  for (let frame = 1; Date.now() < end; frame++) {
    screen.paint(whole(screen), noise(frame));
    await sleep(5);
  }
}

/** The memory store, with the events blob's writes held until `release()` (a stuck disk). */
class StuckBlobStore extends MemoryBlobStore {
  private readonly held: (() => void)[] = [];
  private stuck = true;
  stream: Writable | undefined;

  override append(name: string): Writable {
    const inner = super.append(name);
    if (name !== desktopBlobName(sid, 'desktop.events')) return inner;
    this.stream = new Writable({
      write: (chunk: Buffer, _encoding, callback) => {
        const pass = () => inner.write(chunk, callback);
        if (this.stuck) this.held.push(pass);
        else pass();
      },
      final: (callback) => inner.end(callback),
    });
    return this.stream;
  }

  release(): void {
    this.stuck = false;
    for (const pass of this.held.splice(0)) pass();
  }
}

describe('what a desktop recording may take', () => {
  it('keeps to its byte budget, whatever the screen does', async () => {
    const screen = new TestScreen(160, 100);
    const blobs = new MemoryBlobStore();
    const budget = { bytesPerSecond: 1_000_000, burstBytes: 200_000 };
    const recording = startDesktopRecording({
      sid,
      framebuffer: screen,
      blobs,
      now: Date.now,
      participants: [],
      intervalMs: 10,
      budget,
    });
    const started = Date.now();
    await animate(screen, 1500);
    const { size } = await recording.close();
    const seconds = (Date.now() - started) / 1000;
    const frame = 160 * 100 * 4 + 64;
    // Noise does not compress: unlimited, this would be a frame every 10 ms (about 9 MB).
    expect(size).toBeLessThanOrEqual(budget.burstBytes + seconds * budget.bytesPerSecond + frame);
    expect(size).toBeGreaterThan(seconds * budget.bytesPerSecond * 0.5);
    const events = await readEvents(blobs, (await readDesktopIndex(blobs, sid))!);
    expect(Buffer.from(replay(events).pixels).equals(Buffer.from(screen.data))).toBe(true);
  });

  it('holds a bounded backlog when the disk is stuck, and catches up when it is not', async () => {
    const screen = new TestScreen(160, 100);
    const blobs = new StuckBlobStore();
    const maxBacklogBytes = 100_000;
    const recording = startDesktopRecording({
      sid,
      framebuffer: screen,
      blobs,
      now: Date.now,
      participants: [],
      intervalMs: 10,
      budget: false,
      maxBacklogBytes,
    });
    await animate(screen, 600);
    const frame = 160 * 100 * 4 + 64;
    expect(blobs.stream!.writableLength).toBeGreaterThan(maxBacklogBytes);
    expect(blobs.stream!.writableLength).toBeLessThanOrEqual(maxBacklogBytes + frame);
    const stalled = await chunkCount(blobs, sid);
    await animate(screen, 200);
    expect(await chunkCount(blobs, sid)).toBe(stalled);

    blobs.release();
    await vi.waitFor(async () => expect(await chunkCount(blobs, sid)).toBeGreaterThan(stalled));
    await recording.close();
    const events = await readEvents(blobs, (await readDesktopIndex(blobs, sid))!);
    expect(Buffer.from(replay(events).pixels).equals(Buffer.from(screen.data))).toBe(true);
  });

  it('stops and says why when the blob store fails, and still closes', async () => {
    const screen = new TestScreen(16, 16);
    const blobs = new MemoryBlobStore();
    await blobs.put(desktopBlobName(sid, 'desktop.events'), 'taken');
    const onFailure = vi.fn();
    const recording = startDesktopRecording({
      sid,
      framebuffer: screen,
      blobs: blobs as BlobStore,
      now: Date.now,
      participants: [],
      onFailure,
    });
    await vi.waitFor(() => expect(onFailure).toHaveBeenCalledWith(expect.stringMatching(/exists/)));
    screen.paint(whole(screen), noise(1));
    await expect(recording.close()).resolves.toMatchObject({ durationMs: expect.any(Number) });
    expect(await readDesktopIndex(blobs, sid)).toBeUndefined();
    expect(onFailure).toHaveBeenCalledTimes(1);
  });
});
