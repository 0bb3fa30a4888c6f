import { constants, deflateSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { spdy3Dictionary } from './dictionary.js';
import {
  decodeHeaderBlock,
  encodeHeaderBlock,
  HeaderCompressor,
  HeaderDecompressor,
  InvalidHeaderBlockError,
} from './header-compression.js';

describe('the SPDY/3 header dictionary', () => {
  it('has the length and Adler-32 that name it in every zlib stream', () => {
    expect(spdy3Dictionary.length).toBe(1423);
    expect(adler32(spdy3Dictionary).toString(16)).toBe('e3c6a7c2');
  });
});

describe('header blocks', () => {
  it('round-trips names (lowercased) and NUL-separated values', () => {
    const block = encodeHeaderBlock({ streamType: 'stdin', Port: ['8080', '9090'], empty: '' });
    expect(decodeHeaderBlock(block)).toEqual({
      streamtype: ['stdin'],
      port: ['8080', '9090'],
      empty: [''],
    });
  });

  const broken: [string, Buffer][] = [
    ['an empty name', encodeRaw([['', 'x']])],
    [
      'a name twice',
      encodeRaw([
        ['a', '1'],
        ['a', '2'],
      ]),
    ],
    ['a value with an empty part', encodeRaw([['a', 'x\0']])],
    ['a count larger than the block', Buffer.from([0, 0, 0, 9, 0, 0, 0, 1, 0x61])],
    ['a value cut short', Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 0x61, 0, 0, 0, 5, 0x62])],
  ];
  it.each(broken)('refuses %s', (_what, block) => {
    expect(() => decodeHeaderBlock(block)).toThrow(InvalidHeaderBlockError);
  });
});

describe('header compression', () => {
  it('produces a zlib stream that names the SPDY dictionary and inflates with it alone', async () => {
    const compressor = new HeaderCompressor();
    const block = await compressor.compress({ streamtype: 'error', port: '80', requestid: '0' });
    compressor.close();
    // RFC 1950: FDICT set in the second byte, then the dictionary's Adler-32.
    expect(block[1]! & 0x20).toBe(0x20);
    expect(block.readUInt32BE(2).toString(16)).toBe('e3c6a7c2');
    expect(() => inflateSync(block, { finishFlush: constants.Z_SYNC_FLUSH })).toThrow(
      /dictionary/i,
    );
    const plain = inflateSync(block, {
      dictionary: spdy3Dictionary,
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    expect(decodeHeaderBlock(plain)).toEqual({
      streamtype: ['error'],
      port: ['80'],
      requestid: ['0'],
    });
  });

  it('decodes a block compressed by an independent zlib context with the dictionary', async () => {
    const raw = encodeHeaderBlock({ streamtype: 'stdout', 'x-stream-protocol-version': 'v4' });
    const compressed = deflateSync(raw, {
      dictionary: spdy3Dictionary,
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    const decompressor = new HeaderDecompressor();
    expect(await decompressor.decompress(compressed)).toEqual({
      streamtype: ['stdout'],
      'x-stream-protocol-version': ['v4'],
    });
    decompressor.close();
  });

  it('keeps one context per direction: later blocks refer back to earlier ones', async () => {
    const compressor = new HeaderCompressor();
    const decompressor = new HeaderDecompressor();
    const headers = { streamtype: 'data', port: '8080', requestid: '17' };
    const first = await compressor.compress(headers);
    const second = await compressor.compress(headers);
    expect(second.length).toBeLessThan(first.length);
    // The second block alone means nothing: only the shared context decodes it.
    expect(() =>
      inflateSync(second, { dictionary: spdy3Dictionary, finishFlush: constants.Z_SYNC_FLUSH }),
    ).toThrow();
    expect(await decompressor.decompress(first)).toEqual(
      decodeHeaderBlock(encodeHeaderBlock(headers)),
    );
    expect(await decompressor.decompress(second)).toEqual(
      decodeHeaderBlock(encodeHeaderBlock(headers)),
    );
    compressor.close();
    decompressor.close();
  });

  it('refuses a block that inflates past the limit while inflating', async () => {
    const bomb = deflateSync(encodeHeaderBlock({ big: 'x'.repeat(1_000_000) }), {
      dictionary: spdy3Dictionary,
      finishFlush: constants.Z_SYNC_FLUSH,
    });
    const decompressor = new HeaderDecompressor(64 * 1024);
    await expect(decompressor.decompress(bomb)).rejects.toThrow(/inflates past/);
    decompressor.close();
  });

  it('refuses garbage', async () => {
    const decompressor = new HeaderDecompressor();
    await expect(decompressor.decompress(Buffer.from('not zlib at all'))).rejects.toThrow(
      /header compression failed/,
    );
    decompressor.close();
  });
});

function encodeRaw(pairs: [string, string][]): Buffer {
  const parts: Buffer[] = [u32(pairs.length)];
  for (const [name, value] of pairs) {
    parts.push(u32(name.length), Buffer.from(name), u32(value.length), Buffer.from(value));
  }
  return Buffer.concat(parts);
}

function u32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
}

/** RFC 1950's checksum, by its definition. */
function adler32(bytes: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return (b * 65536 + a) >>> 0;
}
