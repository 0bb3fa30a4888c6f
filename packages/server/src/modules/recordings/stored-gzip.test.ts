import { randomBytes } from 'node:crypto';
import { crc32, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { storedGzipMember } from './stored-gzip.js';

describe('storedGzipMember', () => {
  it('makes members gunzip reads back, at every block boundary', () => {
    for (const size of [0, 1, 65534, 65535, 65536, 3 * 65535 + 7, 300_000]) {
      const data = randomBytes(size);
      const member = storedGzipMember(data, crc32);
      expect(gunzipSync(member)).toEqual(data);
      // Stored: the data is all there is, with 5 bytes per block of 64 KiB and 18 of framing.
      expect(member.length).toBe(size + 5 * Math.max(1, Math.ceil(size / 65535)) + 18);
    }
  });

  it('concatenates with other members into one gzip stream, as the recording file does', () => {
    const a = Buffer.from('first member\n');
    const b = randomBytes(70_000);
    const stream = Buffer.concat([storedGzipMember(a, crc32), storedGzipMember(b, crc32)]);
    expect(gunzipSync(stream)).toEqual(Buffer.concat([a, b]));
  });

  it('is refused by gunzip when a byte is damaged (the CRC is real)', () => {
    const member = Buffer.from(storedGzipMember(Buffer.from('hello world'), crc32));
    const at = member.length - 12; // inside the data
    member.writeUInt8(member.readUInt8(at) ^ 0xff, at);
    expect(() => gunzipSync(member)).toThrow();
  });
});
