import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { CastEvent } from '@postern/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readChunkAt, readChunkFrom, readRecordingInfo } from './playback.js';
import { DirRecordingStore, type RecordingIndex } from './recording-store.js';
import { SessionRecorder } from './session-recorder.js';

let dir: string;
let store: DirRecordingStore;
const sid = '2a1b3c4d-1111-4222-8333-944455556666';

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-play-'));
  store = new DirRecordingStore(dir);
  await store.init();
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/**
 * Ten minutes of a session: a line of output every 100 ms (about 2.4 MiB of cast, so several
 * seek points by size), a keyframe every 5 s whose "screen" names the last line before it, bob
 * joining at 2 minutes and a resize at 5 minutes. Small members (16 KiB) make offsets fall inside and between members.
 */
async function recordTenMinutes(): Promise<{ index: RecordingIndex; sent: CastEvent[] }> {
  const clock = { now: 0 };
  const recorder = new SessionRecorder(
    store.create(sid),
    { width: 120, height: 40, start: 0, term: 'xterm-256color', title: 'root@web-1' },
    { now: () => clock.now, onFailure: (reason) => expect.fail(reason), flushBytes: 16 * 1024 },
  );
  const sent: CastEvent[] = [];
  for (let tick = 1; tick <= 6000; tick++) {
    clock.now = tick * 100;
    const line = `line ${tick} ${'·'.repeat(200)}\r\n`;
    recorder.output(Buffer.from(line));
    sent.push([tick / 10, 'o', line]);
    if (tick === 1200) {
      recorder.join('bob', 'observer');
      sent.push([120, 'm', 'bob joined (observer)']);
    }
    if (tick === 3000) {
      recorder.resize(100, 30);
      sent.push([300, 'r', '100x30']);
    }
    if (tick % 50 === 0) {
      const at = recorder.position();
      recorder.keyframe(at, { w: 120, h: 40 }, `screen after line ${tick}`);
    }
  }
  await recorder.close(['alice']);
  const index = (await store.readIndex(sid))!;
  return { index, sent };
}

describe('recording playback', () => {
  it('stores seek points where each gzip member decompresses on its own', async () => {
    const { index } = await recordTenMinutes();
    const gz = await readFile(store.file(sid, 'cast.gz'));
    const cast = gunzipSync(gz);
    for (const point of index.seekPoints!) {
      // A point is a member start: decompressing from it gives the cast from its offset.
      expect(gunzipSync(gz.subarray(point.gz)).equals(cast.subarray(point.offset))).toBe(true);
    }
    const offsets = new Set(index.seekPoints!.map((p) => p.offset));
    // Every keyframe but one at the very end (nothing follows it) starts a member.
    const inside = index.keyframes.filter((k) => k.offset < index.castBytes);
    expect(inside).toHaveLength(119);
    for (const keyframe of inside) expect(offsets.has(keyframe.offset)).toBe(true);
  });

  it('adds a seek point every MiB when no keyframe comes (output without a screen mirror)', async () => {
    const recorder = new SessionRecorder(
      store.create(sid),
      { width: 80, height: 24, start: 0, term: 'xterm', title: '' },
      { now: () => 0, onFailure: (reason) => expect.fail(reason), flushBytes: 64 * 1024 },
    );
    for (let i = 0; i < 100; i++) recorder.output(Buffer.alloc(32 * 1024, 'a'));
    await recorder.close([]);
    const index = (await store.readIndex(sid))!;
    const offsets = index.seekPoints!.map((p) => p.offset);
    expect(offsets.length).toBeGreaterThanOrEqual(3);
    // At most a MiB (and one member) apart, so no read skips more than that.
    const gaps = offsets.slice(1).map((offset, i) => offset - offsets[i]!);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1024 * 1024 + 65 * 1024);
    const events = await readChunkFrom(store, index, offsets[2]!, 1);
    expect(events.events).toEqual([[0, 'o', 'a'.repeat(32 * 1024)]]);
  });

  it('walks the whole recording chunk by chunk with the next offsets', async () => {
    const { index, sent } = await recordTenMinutes();
    const events: CastEvent[] = [];
    let chunks = 0;
    for (let offset: number | null = 0; offset !== null; chunks++) {
      const chunk = await readChunkFrom(store, index, offset, 100 * 1024);
      events.push(...chunk.events);
      offset = chunk.next;
    }
    expect(events).toEqual(sent);
    expect(chunks).toBeGreaterThan(20);
  });

  it('seeks to the keyframe before a time and plays on from there', async () => {
    const { index } = await recordTenMinutes();
    const chunk = await readChunkAt(store, index, 312.34, 64 * 1024);
    expect(chunk.screen).toEqual({ t: 310, cols: 120, rows: 40, data: 'screen after line 3100' });
    expect(chunk.events[0]![2]).toMatch(/^line 3101 /);
    expect(chunk.events[0]![0]).toBeCloseTo(310.1);
    // Before the first keyframe: no screen, events from the start.
    const early = await readChunkAt(store, index, 3, 1024);
    expect(early.screen).toBeUndefined();
    expect(early.events[0]).toEqual([0.1, 'o', expect.stringMatching(/^line 1 /)]);
    // Past the end: the last keyframe, and the few events after it.
    const late = await readChunkAt(store, index, 10_000, 1024 * 1024);
    expect(late.screen?.data).toBe('screen after line 6000');
    expect(late).toMatchObject({ events: [], next: null });
  });

  it('describes the recording for the player', async () => {
    const { index } = await recordTenMinutes();
    expect(await readRecordingInfo(store, index)).toEqual({
      sid,
      durationMs: 600_000,
      incomplete: false,
      cols: 120,
      rows: 40,
      title: 'root@web-1',
      castBytes: index.castBytes,
      keyframeTimes: Array.from({ length: 120 }, (_, i) => (i + 1) * 5),
      marks: [
        { t: 120, kind: 'join', label: 'bob joined (observer)' },
        { t: 300, kind: 'resize', label: '100x30' },
      ],
    });
  });

  it('reads recordings sealed before seek points existed from the start', async () => {
    const { index, sent } = await recordTenMinutes();
    const old = { ...index, seekPoints: undefined };
    const chunk = await readChunkAt(store, old, 500, 32 * 1024);
    expect(chunk.screen?.data).toBe('screen after line 5000');
    expect(chunk.events[0]).toEqual(sent.find(([t]) => t > 500));
  });
});
