import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MemoryBlobStore } from '../../blobs/memory-blob-store.testkit.js';
import { BlobRecordingStore } from '../recordings/recording-store.js';
import { desktopRecordingSealer } from './desktop-crash-seal.js';
import { desktopBlobName, readDesktopIndex } from './desktop-recording-blobs.js';
import { startDesktopRecording } from './desktop-recorder.js';
import {
  noise,
  readEvents,
  replay,
  TestScreen,
  virtualClock,
  waitForChunks,
} from './desktop-recording.testkit.js';

const sid = '2b3c4d5e-1111-4222-8333-944455556666';
const terminalSid = '3c4d5e6f-1111-4222-8333-944455556666';
const events = desktopBlobName(sid, 'desktop.events');
const chunks = desktopBlobName(sid, 'desktop.chunks.jsonl');

/** A recording of six writes that is never closed: what a crash leaves. */
async function openRecording() {
  const clock = virtualClock();
  const screen = new TestScreen(64, 48, clock.now);
  const blobs = new MemoryBlobStore();
  startDesktopRecording({
    sid,
    framebuffer: screen,
    blobs,
    now: clock.now,
    participants: ['alice'],
    desktopName: 'win-1',
    keyframeIntervalMs: 400,
  });
  for (let step = 1; step <= 5; step++) {
    clock.advance(200);
    screen.paint({ x: step * 5, y: step * 4, width: 20, height: 12 }, noise(step));
    await waitForChunks(blobs, sid, step + 1);
  }
  return { blobs, screen };
}

describe('desktop recordings a crash left open', () => {
  it('are sealed at start beside terminal ones: whole records kept, an end added, incomplete', async () => {
    const { blobs: open, screen } = await openRecording();
    const data = (await open.get(events))!;
    const blobs = new MemoryBlobStore();
    // The crash cut the last write short.
    await blobs.put(events, data.subarray(0, data.length - 10));
    await blobs.put(chunks, (await open.get(chunks))!);
    const cast = gzipSync('{"version":2,"width":80,"height":24}\n[0.5,"o","hi"]\n');
    await blobs.put(`${terminalSid}.cast.gz`, cast);

    const store = new BlobRecordingStore(blobs, [desktopRecordingSealer]);
    expect((await store.init()).sealed.sort()).toEqual([sid, terminalSid].sort());
    expect(await store.readIndex(terminalSid)).toMatchObject({ incomplete: true });

    const index = (await readDesktopIndex(blobs, sid))!;
    expect(index).toMatchObject({
      incomplete: true,
      participants: ['alice'],
      desktopName: 'win-1',
      width: 64,
      height: 48,
      durationMs: 800,
    });
    expect(index.keyframes.map((k) => k.ms)).toEqual([0, 400, 800]);
    const played = await readEvents(blobs, index);
    expect(played.at(-1)).toEqual({ type: 'end', ms: 800 });
    // The screen as of the last write that was whole (the fourth).
    const fourth = screen.captures[4]!;
    expect(Buffer.from(replay(played).pixels).equals(Buffer.from(fourth.pixels))).toBe(true);
    // From a keyframe on, as a seek reads it.
    const fromKeyframe = await readEvents(blobs, index, index.keyframes[1]!.at);
    expect(fromKeyframe[0]).toMatchObject({ type: 'rect', keyframe: true, ms: 400 });

    expect(await store.init()).toEqual({ sealed: [] });
  });

  it('seal one cut before its first write as an empty recording, and one without its chunk list', async () => {
    const blobs = new MemoryBlobStore();
    await blobs.put(events, Buffer.alloc(0));
    const store = new BlobRecordingStore(blobs, [desktopRecordingSealer]);
    expect(await store.init()).toEqual({ sealed: [sid] });
    const empty = (await readDesktopIndex(blobs, sid))!;
    expect(empty).toMatchObject({ incomplete: true, participants: [], keyframes: [] });
    expect(await readEvents(blobs, empty)).toEqual([{ type: 'end', ms: 0 }]);

    const { blobs: open, screen } = await openRecording();
    const other = new MemoryBlobStore();
    await other.put(events, (await open.get(events))!);
    await new BlobRecordingStore(other, [desktopRecordingSealer]).init();
    const index = (await readDesktopIndex(other, sid))!;
    expect(index.integrity.chunks).toBe(2); // all the records as one chunk, and the end
    expect(index.keyframes.map((k) => k.ms)).toEqual([0]);
    const played = await readEvents(other, index);
    expect(Buffer.from(replay(played).pixels).equals(Buffer.from(screen.data))).toBe(true);
  });
});
