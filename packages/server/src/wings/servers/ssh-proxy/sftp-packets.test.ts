import { describe, expect, it } from 'vitest';
import { SshWriter } from '../../../ssh/wire.js';
import { SFTP, SftpPacketReader, type SftpPacketHead } from './sftp-packets.js';

/** One SFTP packet: length, type, then the fields. */
function packet(type: number, build: (w: SshWriter) => SshWriter): Buffer {
  const body = build(new SshWriter().byte(type)).toBuffer();
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([length, body]);
}

const handle = Buffer.from([0, 0, 0, 9]);
const fileData = Buffer.alloc(32 * 1024, 0xab);
const longPath = `/tmp/${'d/'.repeat(6000)}f`; // 12 KB: longer than the head the reader keeps

/** A bit of everything a session sends, file data included. */
const stream = Buffer.concat([
  packet(SFTP.OPEN, (w) => w.uint32(1).string('/tmp/a').uint32(0x1a).uint32(0)),
  packet(SFTP.WRITE, (w) => w.uint32(2).string(handle).uint64(0n).string(fileData)),
  packet(SFTP.DATA, (w) => w.uint32(3).string(fileData)),
  packet(SFTP.STAT, (w) => w.uint32(4).string(longPath)),
  packet(SFTP.RENAME, (w) => w.uint32(5).string('/a').string('/b')),
  packet(SFTP.STATUS, (w) => w.uint32(6).uint32(2).string('No such file').string('')),
]);

/** What the reader reports, with strings as text, for comparing. */
function read(chunks: Buffer[]) {
  const heads: (Omit<SftpPacketHead, 'strings'> & { strings: string[] })[] = [];
  const reader = new SftpPacketReader((head) =>
    heads.push({ ...head, strings: head.strings.map((s) => s.toString('latin1')) }),
  );
  for (const chunk of chunks) reader.push(chunk);
  return heads;
}

describe('SftpPacketReader', () => {
  const whole = read([stream]);

  it('reads each packet’s head: type, id, paths, handles, numbers', () => {
    expect(whole.map((head) => head.type)).toEqual([
      SFTP.OPEN,
      SFTP.WRITE,
      SFTP.DATA,
      SFTP.STAT,
      SFTP.RENAME,
      SFTP.STATUS,
    ]);
    expect(whole[0]).toMatchObject({ id: 1, strings: ['/tmp/a'], number: 0x1a });
    expect(whole[1]).toMatchObject({ id: 2, strings: [handle.toString('latin1')] });
    expect(whole[1]!.dataBytes).toBe(fileData.length);
    expect(whole[2]).toMatchObject({ id: 3, dataBytes: fileData.length, strings: [] });
    // A path longer than the head limit is cut; the packet after it is read all the same.
    expect(whole[3]!.strings[0]!.length).toBeLessThan(longPath.length);
    expect(longPath.startsWith(whole[3]!.strings[0]!)).toBe(true);
    expect(whole[4]).toMatchObject({ id: 5, strings: ['/a', '/b'] });
    expect(whole[5]).toMatchObject({ id: 6, number: 2, strings: ['No such file'] });
  });

  it('reads the same from a stream cut at any point', () => {
    // Every cut within the first bytes of each packet's head, and some further on.
    const cuts = new Set<number>();
    for (let at = 0, i = 0; i < whole.length; i++) {
      for (let k = 0; k < 48; k++) cuts.add(at + k);
      at += 4 + stream.readUInt32BE(at);
    }
    for (let at = 0; at < stream.length; at += 997) cuts.add(at);
    for (const cut of cuts) {
      expect(read([stream.subarray(0, cut), stream.subarray(cut)])).toEqual(whole);
    }
    const bytes = Array.from(stream.subarray(0, 200), (_, i) => stream.subarray(i, i + 1));
    expect(read([...bytes, stream.subarray(200)])).toEqual(whole);
  });

  it('reports a DATA or WRITE packet once its head is in, without waiting for the file data', () => {
    for (const type of [SFTP.DATA, SFTP.WRITE]) {
      const bytes = packet(type, (w) =>
        type === SFTP.DATA
          ? w.uint32(7).string(fileData)
          : w.uint32(7).string(handle).uint64(5n).string(fileData),
      );
      const heads: SftpPacketHead[] = [];
      const reader = new SftpPacketReader((head) => heads.push(head));
      const headLength = type === SFTP.DATA ? 13 : 4 + 1 + 4 + 4 + handle.length + 8 + 4;
      reader.push(bytes.subarray(0, headLength));
      expect(heads).toMatchObject([{ type, id: 7, dataBytes: fileData.length }]);
      // The data that follows is skipped; the next packet is read.
      reader.push(bytes.subarray(headLength));
      reader.push(packet(SFTP.CLOSE, (w) => w.uint32(8).string(handle)));
      expect(heads.map((head) => head.id)).toEqual([7, 8]);
    }
  });

  it('throws on a length no SFTP peer sends', () => {
    const reader = new SftpPacketReader(() => undefined);
    expect(() => reader.push(Buffer.from([0, 0, 0, 0]))).toThrow(/bad SFTP packet length 0/);
  });
});
