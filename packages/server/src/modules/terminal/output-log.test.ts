import { describe, expect, it } from 'vitest';
import { OutputLog } from './output-log.js';

const bytes = (text: string) => Buffer.from(text);
const joined = (chunks: Uint8Array[] | undefined) =>
  chunks === undefined ? undefined : Buffer.concat(chunks).toString();

describe('OutputLog', () => {
  it('keeps what was sent until it is acknowledged, across chunk boundaries', () => {
    const log = new OutputLog();
    log.append(bytes('hello '));
    log.append(bytes('world'));
    log.acknowledge(3);
    expect(log.acknowledged).toBe(3);
    expect(log.sent).toBe(11);
    expect(joined(log.after(4))).toBe('o world');
    // `after` counts what the client had as acknowledged.
    expect(log.acknowledged).toBe(4);
    log.acknowledge(100); // more than was sent: all of it
    expect(log.acknowledged).toBe(11);
    expect(joined(log.after(11))).toBe('');
  });

  it('gives nothing for an offset before what it keeps or past what was sent', () => {
    const log = new OutputLog();
    log.append(bytes('abcdef'));
    log.acknowledge(2);
    expect(log.holds(1)).toBe(false);
    expect(log.after(1)).toBeUndefined();
    expect(log.after(7)).toBeUndefined();
    expect(joined(log.after(2))).toBe('cdef');
  });
});
