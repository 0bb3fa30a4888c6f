import { describe, expect, it } from 'vitest';
import { SshWriter } from '../../../ssh/wire.js';
import { SftpAuditor, type SftpAuditRecord } from './sftp-audit.js';
import { SFTP } from './sftp-packets.js';

/** One SFTP packet: length, type, then the fields. */
function packet(type: number, build: (w: SshWriter) => SshWriter): Buffer {
  const body = build(new SshWriter().byte(type)).toBuffer();
  const length = Buffer.alloc(4);
  length.writeUInt32BE(body.length);
  return Buffer.concat([length, body]);
}

const u32 = (w: SshWriter, n: number) => w.uint32(n);
const handle = Buffer.from([0, 0, 0, 7]);

type Step = ['client' | 'server', Buffer];

/** A `put` as it happens: each request, then its answer (a handle is known before its writes). */
function putSession(data: Buffer): Step[] {
  const status = (id: number, code: number, message = '') =>
    packet(SFTP.STATUS, (w) => u32(w, id).uint32(code).string(message).string(''));
  return [
    ['client', packet(SFTP.INIT, (w) => u32(w, 3))],
    ['server', packet(SFTP.VERSION, (w) => u32(w, 3))],
    ['client', packet(SFTP.OPEN, (w) => u32(w, 1).string('/tmp/a.bin').uint32(0x1a).uint32(0))],
    ['server', packet(SFTP.HANDLE, (w) => u32(w, 1).string(handle))],
    [
      'client',
      packet(SFTP.WRITE, (w) =>
        u32(w, 2).string(handle).uint64(0n).string(data.subarray(0, 40_000)),
      ),
    ],
    [
      'client',
      packet(SFTP.WRITE, (w) =>
        u32(w, 3).string(handle).uint64(40_000n).string(data.subarray(40_000)),
      ),
    ],
    ['server', status(2, 0)],
    ['server', status(3, 0)],
    ['client', packet(SFTP.CLOSE, (w) => u32(w, 4).string(handle))],
    ['server', status(4, 0)],
    ['client', packet(SFTP.REMOVE, (w) => u32(w, 5).string('/nope'))],
    ['server', status(5, 2, 'No such file')],
    ['client', packet(SFTP.STAT, (w) => u32(w, 6).string('/tmp'))],
    ['server', packet(SFTP.ATTRS, (w) => u32(w, 6).uint32(0))],
  ];
}

/** Feeds the steps in order, each cut into `chunk`-byte pieces as TCP may cut them. */
function audit(steps: Step[], chunk: number): SftpAuditRecord[] {
  const records: SftpAuditRecord[] = [];
  const auditor = new SftpAuditor((r) => records.push(r));
  for (const [from, bytes] of steps) {
    const reader = from === 'client' ? auditor.fromClient : auditor.fromServer;
    for (let i = 0; i < bytes.length; i += chunk) reader.push(bytes.subarray(i, i + chunk));
  }
  return records;
}

describe('SftpAuditor', () => {
  const data = Buffer.alloc(70_000, 7);
  const steps = putSession(data);
  const expected = [
    { code: 'TS001I', action: 'open', path: '/tmp/a.bin', flags: 'write,create,truncate' },
    { code: 'TS002I', action: 'close', path: '/tmp/a.bin', bytesRead: 0, bytesWritten: 70_000 },
    { code: 'TS011E', action: 'remove', path: '/nope', error: 'No such file' },
  ];

  it.each([1, 3, 4096, 1 << 20])('records changes and failures, in %i-byte pieces', (chunk) => {
    expect(audit(steps, chunk)).toEqual(expected);
  });

  it.each([1, 7, 4096, 1 << 20])('counts what a get reads, in %i-byte pieces', (chunk) => {
    const read = (id: number, offset: number) =>
      packet(SFTP.READ, (w) => u32(w, id).string(handle).uint64(BigInt(offset)).uint32(32_768));
    const dataAnswer = (id: number, bytes: number) =>
      packet(SFTP.DATA, (w) => u32(w, id).string(data.subarray(0, bytes)));
    const get: Step[] = [
      ['client', packet(SFTP.OPEN, (w) => u32(w, 1).string('/tmp/b.bin').uint32(1).uint32(0))],
      ['server', packet(SFTP.HANDLE, (w) => u32(w, 1).string(handle))],
      ['client', read(2, 0)],
      ['client', read(3, 32_768)],
      ['server', dataAnswer(2, 32_768)],
      ['server', dataAnswer(3, 5_000)],
      ['client', read(4, 37_768)],
      ['server', packet(SFTP.STATUS, (w) => u32(w, 4).uint32(1).string('EOF').string(''))],
      ['client', packet(SFTP.CLOSE, (w) => u32(w, 5).string(handle))],
      ['server', packet(SFTP.STATUS, (w) => u32(w, 5).uint32(0).string('').string(''))],
    ];
    expect(audit(get, chunk)).toEqual([
      { code: 'TS001I', action: 'open', path: '/tmp/b.bin', flags: 'read' },
      { code: 'TS002I', action: 'close', path: '/tmp/b.bin', bytesRead: 37_768, bytesWritten: 0 },
    ]);
  });

  it('refuses a stream that is not SFTP', () => {
    const auditor = new SftpAuditor(() => undefined);
    expect(() => auditor.fromClient.push(Buffer.from('GET / HTTP/1.1\r\n'))).toThrow(
      /bad SFTP packet length/,
    );
  });
});
