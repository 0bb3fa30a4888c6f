import { readFile, writeFile } from 'node:fs/promises';
import { expect } from 'vitest';
import { parseChunkList } from './recording-integrity.js';
import type { DirRecordingStore, RecordingIndex, RecordingStore } from './recording-store.js';
import { SessionRecorder } from './session-recorder.js';

/** A minute of output, a line a second, in small members (a chunk every few lines), a keyframe every 10 s. */
export async function recordMinute(into: RecordingStore, id: string): Promise<RecordingIndex> {
  const clock = { now: 0 };
  const recorder = new SessionRecorder(
    into.create(id),
    { width: 80, height: 24, start: 0, term: 'xterm', title: 't' },
    { now: () => clock.now, onFailure: (reason) => expect.fail(reason), flushBytes: 2000 },
  );
  for (let second = 1; second <= 60; second++) {
    clock.now = second * 1000;
    recorder.output(Buffer.from(`second ${second} ${'x'.repeat(500)}\r\n`));
    if (second % 10 === 0) {
      const at = recorder.position();
      recorder.keyframe(at, { w: 80, h: 24 }, `screen at ${second}`);
    }
  }
  await recorder.close(['alice'], 60_000);
  return (await into.readIndex(id))!;
}

/** Flips one byte in the middle of stored chunk `chunk`; returns the chunk's record. */
export async function flipByteInChunk(into: DirRecordingStore, id: string, chunk: number) {
  const record = parseChunkList((await into.readChunkList(id))!)[chunk]!;
  const file = into.file(id, 'cast.gz');
  const bytes = await readFile(file);
  const at = record.gz + Math.floor(record.length / 2);
  bytes[at] = bytes[at]! ^ 0xff;
  await writeFile(file, bytes);
  return record;
}
