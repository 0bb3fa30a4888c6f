import { PassThrough, Writable } from 'node:stream';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { coalescingPipe } from './coalescing-pipe.js';

/** A writer that records each write it is handed (a writev counts once) and when it completes. */
function recordingWriter(options: { complete?: 'at once' | 'when told' } = {}) {
  const batches: Buffer[][] = [];
  const pending: Array<() => void> = [];
  const settle = (callback: () => void) =>
    options.complete === 'when told' ? pending.push(callback) : callback();
  const writer = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _encoding, callback) {
      batches.push([chunk]);
      settle(callback);
    },
    writev(chunks, callback) {
      batches.push(chunks.map(({ chunk }) => chunk as Buffer));
      settle(callback);
    },
  });
  const completeAll = () => {
    for (const callback of pending.splice(0)) callback();
  };
  return { writer, batches, completeAll };
}

const kib = (n: number, fill: number) => Buffer.alloc(n * 1024, fill);

describe('coalescingPipe', () => {
  it('writes the chunks of one turn as one write, in order, and ends the writer at the end', async () => {
    const from = new PassThrough();
    const { writer, batches } = recordingWriter();
    coalescingPipe(from, writer);
    from.write(kib(16, 1));
    from.write(kib(16, 2));
    from.write(kib(16, 3));
    await turn();
    from.write(kib(1, 4));
    from.end();
    await new Promise((resolve) => writer.once('finish', resolve));
    expect(batches.map((batch) => batch.map((chunk) => chunk[0]))).toEqual([[1, 2, 3], [4]]);
    expect(Buffer.concat(batches.flat()).length).toBe(49 * 1024);
  });

  it('pauses the reader after a turn that filled the writer, and resumes it once drained', async () => {
    const from = new PassThrough({ highWaterMark: 16 * 1024 });
    const { writer, batches, completeAll } = recordingWriter({ complete: 'when told' });
    coalescingPipe(from, writer);
    from.write(kib(16, 1));
    from.write(kib(16, 2));
    await turn();
    expect(from.isPaused()).toBe(true);
    // What the reader is given meanwhile waits in its own buffer, not in the writer.
    from.write(kib(16, 3));
    await turn();
    expect(batches.flat().length).toBe(2);
    completeAll();
    await turn();
    // Drained: the reader resumed and its waiting chunk was written.
    expect(batches.flat().map((chunk) => chunk[0])).toEqual([1, 2, 3]);
  });

  it('stops writing once undone, and leaves the writer open', async () => {
    const from = new PassThrough();
    const { writer, batches } = recordingWriter();
    const undo = coalescingPipe(from, writer);
    from.write(kib(1, 1));
    await turn();
    undo();
    from.on('data', () => undefined);
    from.write(kib(1, 2));
    from.end();
    await turn();
    expect(batches.flat().map((chunk) => chunk[0])).toEqual([1]);
    expect(writer.writableEnded).toBe(false);
  });
});
