import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryBlobStore } from '../../blobs/memory-blob-store.testkit.js';
import { readChunkAt, readRecordingInfo } from './playback.js';
import { recordMinute } from './recording-integrity.testkit.js';
import { BlobRecordingStore, DirRecordingStore } from './recording-store.js';
import { verifyRecording } from './recording-verify.js';

const sid = '5a0c2a6c-1111-4222-8333-944455556666';
const parts = ['cast.gz', 'chunks.jsonl', 'index.json', 'keyframes.jsonl'];
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'postern-recording-blobs-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('recordings over a blob store', () => {
  it('records, verifies and plays back over any blob store, with the directory files as before', async () => {
    const blobs = new MemoryBlobStore();
    const store = new BlobRecordingStore(blobs);
    await store.init();
    const index = await recordMinute(store, sid);
    expect(await blobs.list()).toEqual(parts.map((part) => `${sid}.${part}`));
    expect(await store.listSealed()).toEqual([sid]);
    expect(await verifyRecording(store, sid)).toMatchObject({ status: 'ok', keyframes: 6 });
    expect(await readRecordingInfo(store, index)).toMatchObject({ cols: 80, rows: 24, title: 't' });
    const seek = await readChunkAt(store, index, 35, 64 * 1024);
    expect(seek.screen?.data).toBe('screen at 30');
    expect(seek.events[0]?.[2]).toMatch(/^second 31 /);

    // The same recording in a directory: the same bytes, in files named like the blobs.
    const local = new DirRecordingStore(dir);
    await local.init();
    await recordMinute(local, sid);
    expect((await readdir(dir)).sort()).toEqual(await blobs.list());
    for (const name of await blobs.list())
      expect((await readFile(path.join(dir, name))).equals((await blobs.get(name))!), name).toBe(
        true,
      );
  });

  it('seals a recording a crash left without an index, over any blob store', async () => {
    const blobs = new MemoryBlobStore();
    const header = '{"version":2,"width":80,"height":24,"timestamp":1,"env":{},"title":"t"}\n';
    const events = '[0.5,"o","kept"]\n[1.5,"o","kept too"]\n';
    const cast = Buffer.concat([gzipSync(header + events), gzipSync('[2.5,"o","cut off"]\n')]);
    await blobs.put(`${sid}.cast.gz`, cast.subarray(0, cast.length - 12));
    const store = new BlobRecordingStore(blobs);
    expect(await store.init()).toEqual({ sealed: [sid] });
    expect(await store.readIndex(sid)).toMatchObject({
      incomplete: true,
      durationMs: 1500,
      castBytes: Buffer.byteLength(header + events),
    });
    expect(await verifyRecording(store, sid)).toMatchObject({ status: 'ok', chunks: 1 });
    expect(await store.init()).toEqual({ sealed: [] });
  });
});
