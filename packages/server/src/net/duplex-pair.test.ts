import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { duplexPair } from './duplex-pair.js';

describe('duplexPair', () => {
  it('carries bytes both ways and ends each way on its own', async () => {
    const [a, b] = duplexPair();
    const fromA: Buffer[] = [];
    b.on('data', (chunk: Buffer) => fromA.push(chunk));
    const bEnded = new Promise((resolve) => b.once('end', resolve));
    a.end('hello');
    await bEnded;
    expect(Buffer.concat(fromA).toString()).toBe('hello');
    // b may still answer after a ended its side.
    const fromB: Buffer[] = [];
    a.on('data', (chunk: Buffer) => fromB.push(chunk));
    const aEnded = new Promise((resolve) => a.once('end', resolve));
    b.end('world');
    await aEnded;
    expect(Buffer.concat(fromB).toString()).toBe('world');
  });

  it('holds a writer while the reader is not reading, then lets everything through in order', async () => {
    const [a, b] = duplexPair();
    const data = randomBytes(4 * 1024 * 1024);
    let written = 0;
    const writing = (async () => {
      for (let at = 0; at < data.length; at += 64 * 1024) {
        if (!a.write(data.subarray(at, at + 64 * 1024))) {
          await new Promise((resolve) => a.once('drain', resolve));
        }
        written = at + 64 * 1024;
      }
      a.end();
    })();
    await sleep(50);
    // Nobody reads b: the writer stops near the two streams' buffers, far short of 4 MiB.
    expect(written).toBeLessThan(512 * 1024);
    const hash = createHash('sha256');
    for await (const chunk of b) hash.update(chunk as Buffer);
    await writing;
    expect(hash.digest('hex')).toBe(createHash('sha256').update(data).digest('hex'));
  });

  it('destroys both ends when one is destroyed, releasing a held writer', async () => {
    const [a, b] = duplexPair('127.0.0.9');
    expect((b as unknown as { remoteAddress: string }).remoteAddress).toBe('127.0.0.9');
    while (a.write(Buffer.alloc(64 * 1024)));
    const closed = new Promise((resolve) => a.once('close', resolve));
    b.destroy();
    await closed;
    expect(a.destroyed).toBe(true);
  });
});
