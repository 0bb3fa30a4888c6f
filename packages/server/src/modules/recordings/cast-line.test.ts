import { describe, expect, it } from 'vitest';
import { incompleteUtf8Tail } from './cast-line.js';

describe('incompleteUtf8Tail', () => {
  it('counts the bytes of a character the next output completes, and nothing else', () => {
    const euro = Buffer.from('€'); // E2 82 AC
    const smile = Buffer.from('🙂'); // F0 9F 99 82
    expect(incompleteUtf8Tail(Buffer.from('abc'))).toBe(0);
    expect(incompleteUtf8Tail(Buffer.concat([Buffer.from('a'), euro]))).toBe(0);
    expect(incompleteUtf8Tail(Buffer.concat([Buffer.from('a'), euro.subarray(0, 1)]))).toBe(1);
    expect(incompleteUtf8Tail(euro.subarray(0, 2))).toBe(2);
    expect(incompleteUtf8Tail(smile.subarray(0, 3))).toBe(3);
    expect(incompleteUtf8Tail(smile)).toBe(0);
    expect(incompleteUtf8Tail(Buffer.from([0x61, 0xff]))).toBe(0); // not UTF-8: nothing to wait for
    expect(incompleteUtf8Tail(Buffer.from([0x80, 0x80, 0x80]))).toBe(0);
    expect(incompleteUtf8Tail(Buffer.alloc(0))).toBe(0);
  });
});
