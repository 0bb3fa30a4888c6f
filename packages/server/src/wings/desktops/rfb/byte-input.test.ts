import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ByteInput } from './byte-input.js';
import { PeerGoneError } from './rfb-errors.js';
import { choppedInput } from './rfb.testkit.js';

describe('ByteInput', () => {
  it('reads the same bytes whatever the chunks and the sizes asked for', async () => {
    const bytes = randomBytes(100_000);
    for (const maxPiece of [1, 7, 3000, 70_000]) {
      const input = choppedInput(bytes, maxPiece, maxPiece);
      const read: Buffer[] = [];
      for (let at = 0, size = 1; at < bytes.length; at += size, size = (size * 7) % 5000 || 1) {
        read.push(await input.read(Math.min(size, bytes.length - at)));
      }
      expect(Buffer.concat(read).equals(bytes)).toBe(true);
    }
  });

  it('takes a long message trickled a byte at a time without a cost per byte', async () => {
    const stream = new PassThrough();
    const input = new ByteInput(stream, 'the browser');
    const bytes = randomBytes(512 * 1024);
    const read = input.read(bytes.length);
    for (let at = 0; at < bytes.length; at++) {
      stream.write(bytes.subarray(at, at + 1));
      if (at % 4096 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const started = performance.now();
    expect((await read).equals(bytes)).toBe(true);
    // Half a million one-byte Buffers taken one shift() at a time would take minutes.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('pauses its stream above the high water mark until read', async () => {
    const stream = new PassThrough();
    const input = new ByteInput(stream, 'the desktop', 1024);
    stream.write(Buffer.alloc(4096));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stream.isPaused()).toBe(true);
    await input.read(4000);
    expect(stream.isPaused()).toBe(false);
  });

  it('gives what was buffered after the peer ended, then says the peer is gone', async () => {
    const stream = new PassThrough();
    const input = new ByteInput(stream, 'the desktop');
    stream.end(Buffer.from('abc'));
    expect((await input.read(2)).toString()).toBe('ab');
    const rest = input.read(2);
    await expect(rest).rejects.toThrow(PeerGoneError);
    await expect(rest).rejects.toThrow('the desktop closed the connection');
  });
});
