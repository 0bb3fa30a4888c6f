import { describe, expect, it } from 'vitest';
import { KeyboardState } from './keyboard.js';

const shiftL = 0xffe1;
/** Each event as `+code`/`-code` (scancodes) for short expectations. */
const keys = (state: KeyboardState, keysym: number, down: boolean) =>
  state
    .events(keysym, down)
    .map((e) => (e.type === 'mouse' ? 'mouse' : `${e.down ? '+' : '-'}${e.code.toString(16)}`));

describe('KeyboardState', () => {
  it('sends a key as it is when Shift is already as its character wants', () => {
    const state = new KeyboardState();
    expect(keys(state, 0x34, true)).toEqual(['+5']); // 4
    expect(keys(state, 0x34, false)).toEqual(['-5']);
    expect(keys(state, shiftL, true)).toEqual(['+2a']);
    expect(keys(state, 0x24, true)).toEqual(['+5']); // $ with Shift held
    expect(keys(state, 0x24, false)).toEqual(['-5']);
    expect(keys(state, shiftL, false)).toEqual(['-2a']);
  });

  it('puts Shift around a shifted character typed without it', () => {
    const state = new KeyboardState();
    expect(keys(state, 0x24, true)).toEqual(['+2a', '+5', '-2a']); // $
    expect(keys(state, 0x24, false)).toEqual(['-5']);
    expect(keys(state, 0x41, true)).toEqual(['+2a', '+1e', '-2a']); // A
  });

  it('lifts a held Shift around an unshifted character (another layout’s shifted key)', () => {
    const state = new KeyboardState();
    state.events(0xffe2, true); // Shift_R
    expect(keys(state, 0x31, true)).toEqual(['-36', '+2', '+36']); // 1
    expect(keys(state, 0x31, false)).toEqual(['-2']);
  });

  it('counts Caps Lock for letters only', () => {
    const state = new KeyboardState();
    state.events(0xffe5, true);
    state.events(0xffe5, false);
    expect(keys(state, 0x41, true)).toEqual(['+1e']); // A with Caps Lock on
    expect(keys(state, 0x61, true)).toEqual(['+2a', '+1e', '-2a']); // a
    expect(keys(state, 0x2d, true)).toEqual(['+c']); // -
  });

  it('leaves keys off the character rows and Unicode characters alone', () => {
    const state = new KeyboardState();
    expect(keys(state, 0xff0d, true)).toEqual(['+1c']); // Return
    expect(keys(state, 0x20, true)).toEqual(['+39']); // space
    expect(state.events(0xe9, true)).toEqual([{ type: 'unicode', code: 0xe9, down: true }]); // é
  });
});
