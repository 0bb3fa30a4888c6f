import { describe, expect, it } from 'vitest';
import { CommandGate } from './my-command-gate.js';
import { MysqlWireError, packet } from './my-wire.js';

const command = (code: number, text = '') =>
  packet(0, Buffer.concat([Buffer.from([code]), Buffer.from(text)]));

const query = command(0x03, 'select 1');
const useAllowed = command(0x02, 'allowed');
const useRefused = command(0x02, 'secret');
const fileData = packet(2, Buffer.from('a file line\n'));
const ping = command(0x0e);
const quit = command(0x01);
const stream = Buffer.concat([query, useAllowed, useRefused, fileData, ping, quit]);

/** Runs the stream through a gate in the given chunks; returns what went on and what was seen. */
function run(chunks: Buffer[], keepBytes?: number) {
  const passed: string[] = [];
  const judged: string[] = [];
  const gate = new CommandGate(
    {
      holds: (code) => code === 0x02,
      judge: (payload) => {
        judged.push(payload.toString('utf8', 1));
        return payload.toString('utf8', 1) === 'secret' ? undefined : payload;
      },
      passed: (payload, truncated) =>
        passed.push(`${payload[0]}:${payload.toString('utf8', 1)}${truncated ? '…' : ''}`),
    },
    keepBytes,
  );
  const out: Buffer[] = [];
  for (const chunk of chunks) gate.push(chunk, out);
  return { forwarded: Buffer.concat(out), passed, judged };
}

const expected = Buffer.concat([query, useAllowed, fileData, ping, quit]);

describe('the MySQL command gate', () => {
  it('forwards everything but a refused held command, however the bytes are cut', () => {
    // Every way to cut the stream in two places: heads, bodies and held packets split anywhere.
    for (let first = 0; first <= stream.length; first++) {
      for (let second = first; second <= stream.length; second += 3) {
        const chunks = [
          stream.subarray(0, first),
          stream.subarray(first, second),
          stream.subarray(second),
        ];
        const result = run(chunks);
        expect(result.forwarded.equals(expected), `cut at ${first}, ${second}`).toBe(true);
        expect(result.passed).toEqual(['3:select 1', '14:', '1:']);
        expect(result.judged).toEqual(['allowed', 'secret']);
      }
    }
  });

  it('forwards one byte at a time in order', () => {
    const bytes = [...stream].map((byte) => Buffer.from([byte]));
    expect(run(bytes).forwarded.equals(expected)).toBe(true);
  });

  it('hands the audit only the first bytes of a long command, marked as cut', () => {
    const long = command(0x03, 'x'.repeat(100));
    const result = run([long], 11);
    expect(result.forwarded.equals(long)).toBe(true);
    expect(result.passed).toEqual([`3:${'x'.repeat(10)}…`]);
  });

  it('does not forward a whole chunk of passing packets piece by piece', () => {
    const gate = new CommandGate({
      holds: () => false,
      judge: (payload) => payload,
      passed: () => {},
    });
    const out: Buffer[] = [];
    gate.push(Buffer.concat([query, ping, fileData]), out);
    expect(out).toHaveLength(1);
  });

  it('forwards a held command rewritten by its judge, with the same sequence number', () => {
    const gate = new CommandGate({
      holds: () => true,
      judge: () => Buffer.from([0x03, 0x4b]),
      passed: () => {},
    });
    const out: Buffer[] = [];
    gate.push(command(0x03, 'KILL 1'), out);
    expect(Buffer.concat(out)).toEqual(packet(0, Buffer.from([0x03, 0x4b])));
  });

  it('refuses a held command too long to hold', () => {
    const gate = new CommandGate({
      holds: () => true,
      judge: (payload) => payload,
      passed: () => {},
    });
    const header = Buffer.from([0xff, 0xff, 0x0f, 0x00, 0x02]);
    expect(() => gate.push(header, [])).toThrow(MysqlWireError);
  });
});
