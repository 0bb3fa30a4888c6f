import { describe, expect, it } from 'vitest';
import { FastPathOutput } from './fast-path.js';
import { RdpProtocolError } from './rdp-wire.js';

/** TS_FP_UPDATE (2.2.9.1.2.1): updateHeader (code, fragmentation), size, data. */
function update(code: number, fragmentation: number, data: Buffer): Buffer {
  const head = Buffer.alloc(3);
  head.writeUInt8(code | (fragmentation << 4), 0);
  head.writeUInt16LE(data.length, 1);
  return Buffer.concat([head, data]);
}

function collect() {
  const seen: [number, string][] = [];
  const output = new FastPathOutput((code, data) => seen.push([code, data.toString()]));
  return { seen, output };
}

describe('fast-path output', () => {
  it('passes on each update of a PDU, and puts fragmented ones back together', () => {
    const { seen, output } = collect();
    output.receive(
      0,
      Buffer.concat([update(1, 0, Buffer.from('one')), update(3, 0, Buffer.from(''))]),
    );
    output.receive(0, update(1, 2, Buffer.from('fir')));
    output.receive(
      0,
      Buffer.concat([update(1, 3, Buffer.from('st ')), update(1, 1, Buffer.from('whole'))]),
    );
    expect(seen).toEqual([
      [1, 'one'],
      [3, ''],
      [1, 'first whole'],
    ]);
  });

  it('refuses RDP encryption, compression and updates cut short', () => {
    const { output } = collect();
    expect(() => output.receive(0x80, update(1, 0, Buffer.from('x')))).toThrow(/encrypted/);
    expect(() => output.receive(0, Buffer.from([0x81, 0, 1, 0, 0]))).toThrow(/compressed/);
    expect(() => output.receive(0, update(1, 0, Buffer.from('xyz')).subarray(0, 4))).toThrow(
      RdpProtocolError,
    );
    expect(() => output.receive(0, Buffer.from([0x01, 0x05]))).toThrow(/cut short/);
  });
});
