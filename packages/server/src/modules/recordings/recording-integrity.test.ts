import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readChunkAt, readChunkFrom } from './playback.js';
import { parseChunkList } from './recording-integrity.js';
import { flipByteInChunk, recordMinute } from './recording-integrity.testkit.js';
import { verifyRecording } from './recording-verify.js';
import { DirRecordingStore } from './recording-store.js';

const sid = '3d0c2a6c-1111-4222-8333-944455556666';
let dir: string;
let store: DirRecordingStore;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-integrity-'));
  store = new DirRecordingStore(dir);
  await store.init();
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('recording integrity', () => {
  it('seals the chunk chain: an untouched recording verifies', async () => {
    const index = await recordMinute(store, sid);
    const chunks = parseChunkList((await store.readChunkList(sid))!);
    expect(chunks.length).toBeGreaterThan(10);
    expect(index.integrity).toMatchObject({ chunks: chunks.length, head: chunks.at(-1)!.chain });
    expect(await verifyRecording(store, sid)).toEqual({
      sid,
      status: 'ok',
      chunks: chunks.length,
      keyframes: 6,
    });
  });

  it('names the chunk with a flipped byte, and playback stops there with the damage', async () => {
    const index = await recordMinute(store, sid);
    const record = await flipByteInChunk(store, sid, 7);
    expect(await verifyRecording(store, sid)).toEqual({
      sid,
      status: 'damaged',
      file: `${sid}.cast.gz`,
      chunk: 7,
      offset: record.gz,
      reason: expect.stringMatching(/altered/),
    });
    const read = await readChunkFrom(store, index, 0, 10 * 1024 * 1024);
    expect(read.next).toBeNull();
    expect(read.damaged).toEqual({ t: expect.any(Number), chunk: 7, message: expect.any(String) });
    // Everything before the damaged chunk, nothing from it on.
    const last = read.events.at(-1)!;
    expect(last[0]).toBeLessThan(record.t);
    expect(read.damaged!.t).toBe(last[0]);
    expect(read.events.length).toBeGreaterThan(5);
    // A seek to the start reads the same; one past the damage plays the intact part there.
    expect((await readChunkAt(store, index, 0, 10 * 1024 * 1024)).damaged?.chunk).toBe(7);
    expect((await readChunkAt(store, index, 55, 1024 * 1024)).damaged).toBeUndefined();
  });

  it('notices a removed chunk line, a cut cast and an altered keyframe', async () => {
    const index = await recordMinute(store, sid);
    const listFile = store.file(sid, 'chunks.jsonl');
    const lines = (await readFile(listFile, 'utf8')).split('\n');
    await writeFile(listFile, [...lines.slice(0, 4), ...lines.slice(5)].join('\n'));
    expect(await verifyRecording(store, sid)).toMatchObject({ status: 'damaged', chunk: 4 });
    await writeFile(listFile, lines.join('\n'));

    const castFile = store.file(sid, 'cast.gz');
    const cast = await readFile(castFile);
    await writeFile(castFile, cast.subarray(0, cast.length - 10));
    const cut = await verifyRecording(store, sid);
    expect(cut).toMatchObject({ status: 'damaged', chunk: index.integrity!.chunks - 1 });
    await writeFile(castFile, cast);
    expect(await verifyRecording(store, sid)).toMatchObject({ status: 'ok' });

    const keyframesFile = store.file(sid, 'keyframes.jsonl');
    const keyframes = await readFile(keyframesFile, 'utf8');
    await writeFile(keyframesFile, keyframes.replace('screen at 30', 'screen at 99'));
    expect(await verifyRecording(store, sid)).toEqual({
      sid,
      status: 'damaged',
      file: `${sid}.keyframes.jsonl`,
      offset: index.keyframes[2]!.at,
      reason: 'keyframe 2 was altered',
    });
    // The player never draws the altered screen: the seek falls back to playing from the start.
    const seek = await readChunkAt(store, index, 35, 1024 * 1024);
    expect(seek.screen).toBeUndefined();
    expect(seek.events[0]?.[0]).toBe(1);
  });
});
