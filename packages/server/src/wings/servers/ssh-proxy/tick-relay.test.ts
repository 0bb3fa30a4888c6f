import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tailWaitMs, tickRelay } from './tick-relay.js';

/** A destination that records each write it is given, and can say it is full. */
function recorder(options: { full?: () => boolean } = {}) {
  const writes: string[] = [];
  let pending: (() => void) | undefined;
  const sink = new Writable({
    highWaterMark: 4,
    write(chunk: Buffer, _encoding, callback) {
      writes.push(chunk.toString());
      if (options.full?.()) pending = callback;
      else callback();
    },
  });
  return { sink, writes, release: () => pending?.() };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('tickRelay', () => {
  afterEach(() => vi.useRealTimers());

  it('writes what arrives in one turn of the event loop as one buffer, in order', async () => {
    const from = new PassThrough();
    const { sink, writes } = recorder();
    const seen: string[] = [];
    tickRelay(from, sink, (chunk) => seen.push(chunk.toString()), {
      end: true,
      onStop: () => {},
    });
    from.write('a');
    from.write('b');
    from.write('c');
    await tick();
    from.write('d');
    await tick();
    expect(writes).toEqual(['abc', 'd']);
    expect(seen.join('')).toBe('abcd');
  });

  it('flushes on end, then ends the destination only when asked to', async () => {
    for (const end of [true, false]) {
      const from = new PassThrough();
      const { sink, writes } = recorder();
      tickRelay(from, sink, () => {}, { end, onStop: () => {} });
      from.end('last');
      await tick();
      expect(writes).toEqual(['last']);
      expect(sink.writableEnded).toBe(end);
    }
  });

  it('pauses the source while the destination is full, and resumes on drain', async () => {
    const from = new PassThrough();
    let full = true;
    const { sink, writes, release } = recorder({ full: () => full });
    tickRelay(from, sink, () => {}, { end: false, onStop: () => {} });
    from.write('0123456789');
    await tick();
    expect(from.isPaused()).toBe(true);
    full = false;
    release();
    await tick();
    expect(from.isPaused()).toBe(false);
    from.write('more');
    await tick();
    expect(writes).toEqual(['0123456789', 'more']);
  });

  it('stops when the watcher refuses a chunk, forwarding nothing more', async () => {
    const from = new PassThrough();
    const { sink, writes } = recorder();
    const stops: string[] = [];
    tickRelay(
      from,
      sink,
      (chunk) => {
        if (chunk.toString() === 'bad') throw new Error('malformed packet');
      },
      { end: true, onStop: (error) => stops.push(error.message) },
    );
    from.write('ok');
    await tick();
    from.write('bad');
    await tick();
    from.end('after');
    await tick();
    expect(writes).toEqual(['ok']);
    expect(stops).toEqual(['malformed packet']);
    expect(sink.writableEnded).toBe(false);
  });

  it('with a packet size, writes whole packets and lets a short tail wait for what follows', async () => {
    // Only the tail's timer is fake: a loaded machine must not let it fire between two steps.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const from = new PassThrough();
    const { sink, writes } = recorder();
    tickRelay(from, sink, () => {}, { end: true, onStop: () => {}, packetSize: 8 });
    from.write('abcdefghij');
    await tick();
    expect(writes).toEqual(['abcdefgh']);
    from.write('klm');
    from.write('nopq');
    await tick();
    expect(writes).toEqual(['abcdefgh', 'ijklmnop']);
    // Nothing follows: the tail leaves after at most tailWaitMs.
    vi.advanceTimersByTime(tailWaitMs - 0.5);
    await tick();
    expect(writes).toEqual(['abcdefgh', 'ijklmnop']);
    vi.advanceTimersByTime(1);
    await tick();
    expect(writes).toEqual(['abcdefgh', 'ijklmnop', 'q']);
    vi.useRealTimers();
  });

  it('with a packet size, writes chunks that fill their packets as they are, not joined', async () => {
    const from = new PassThrough();
    const written: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        written.push(chunk);
        callback();
      },
    });
    tickRelay(from, sink, () => {}, { end: true, onStop: () => {}, packetSize: 8 });
    // Whole packets, and one whose last packet is more than half full: the same buffers.
    const chunks = ['abcdefgh', '01234567', 'ABCDEFGHIJKLMN', 'ijklmnop'].map((c) =>
      Buffer.from(c),
    );
    for (const chunk of chunks) from.write(chunk);
    await tick();
    expect(written).toHaveLength(chunks.length);
    written.forEach((buffer, i) => expect(buffer.buffer).toBe(chunks[i]!.buffer));
    expect(written.map(String)).toEqual(chunks.map(String));
  });

  it('with a packet size, sends a held tail alone before a chunk that fills its packets', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const from = new PassThrough();
    const { sink, writes } = recorder();
    tickRelay(from, sink, () => {}, { end: true, onStop: () => {}, packetSize: 8 });
    from.write('abcdefghij');
    await tick();
    expect(writes).toEqual(['abcdefgh']);
    // The tail 'ij' goes as a short packet; joined, '01234567' and all after it would shift.
    from.write('xy');
    from.write('01234567');
    from.write('z');
    await tick();
    expect(writes).toEqual(['abcdefgh', 'ijxy', '01234567']);
    vi.advanceTimersByTime(tailWaitMs);
    await tick();
    expect(writes).toEqual(['abcdefgh', 'ijxy', '01234567', 'z']);
    vi.useRealTimers();
  });

  it('with a packet size, writes less than a packet at once, and the tail on end', async () => {
    const from = new PassThrough();
    const { sink, writes } = recorder();
    tickRelay(from, sink, () => {}, { end: true, onStop: () => {}, packetSize: 8 });
    from.write('ok');
    await tick();
    expect(writes).toEqual(['ok']);
    from.write('0123456789');
    await tick();
    from.end();
    await tick();
    expect(writes).toEqual(['ok', '01234567', '89']);
    expect(sink.writableEnded).toBe(true);
  });
});
