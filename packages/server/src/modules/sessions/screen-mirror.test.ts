import { afterEach, describe, expect, it } from 'vitest';
import { ScreenMirror } from './screen-mirror.js';

const mirrors: ScreenMirror[] = [];
afterEach(async () => {
  await Promise.all(mirrors.splice(0).map((m) => m.stop()));
});

function mirror() {
  const m = new ScreenMirror();
  mirrors.push(m);
  return m;
}

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('ScreenMirror', () => {
  it('applies a resize after the output written before it, and before what follows', async () => {
    const m = mirror();
    m.open('s', 20, 5);
    // "Cursor forward 999" stops at the last column, so X lands at the width of its time.
    m.write('s', bytes('\x1b[999CX'));
    m.resize('s', 40, 5);
    m.write('s', bytes('\x1b[999CY'));
    expect(await m.snapshot('s')).toBe('\x1b[19CX\x1b[19CY');
  });
});
