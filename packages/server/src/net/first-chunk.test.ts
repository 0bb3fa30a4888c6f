import { describe, expect, it } from 'vitest';
import { duplexPair } from './duplex-pair.js';
import { firstChunk } from './first-chunk.js';

describe('firstChunk', () => {
  it('resolves the first chunk and leaves what follows to the next reader', async () => {
    const [near, far] = duplexPair();
    const first = firstChunk(near, 'closed');
    far.write('S');
    expect((await first).toString()).toBe('S');
    far.write('after');
    // Paused: the later bytes wait in the stream instead of flowing past with no listener.
    await new Promise((resolve) => setImmediate(resolve));
    expect(near.isPaused()).toBe(true);
    expect(near.listenerCount('data')).toBe(0);
    expect(String(near.read())).toBe('after');
  });

  it('rejects with the given reason when the peer closes without a byte', async () => {
    const [near, far] = duplexPair();
    const first = firstChunk(near, 'it closed the connection without a word');
    far.destroy();
    await expect(first).rejects.toThrow('it closed the connection without a word');
    expect(near.listenerCount('close')).toBe(0);
  });

  it("rejects with the stream's own error", async () => {
    const [near] = duplexPair();
    const first = firstChunk(near, 'closed');
    near.destroy(new Error('ECONNRESET'));
    await expect(first).rejects.toThrow('ECONNRESET');
  });
});
