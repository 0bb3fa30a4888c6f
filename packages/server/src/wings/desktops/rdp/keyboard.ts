import type { InputEvent } from './share-pdus.js';

/**
 * X keysyms (what noVNC sends) as RDP input (what Windows and xrdp take): keys with a place on
 * a US keyboard become scancodes, the same key whatever Shift does (`$` is the 4 key); any other
 * character is sent as a Unicode key event. A keysym says the character, not whether Shift was
 * held for it, so KeyboardState puts Shift right for each character.
 */
const special: Record<number, [code: number, extended?: boolean]> = {
  0xff08: [0x0e], // BackSpace
  0xff09: [0x0f], // Tab
  0xff0d: [0x1c], // Return
  0xff1b: [0x01], // Escape
  0xffff: [0x53, true], // Delete
  0xff50: [0x47, true], // Home
  0xff51: [0x4b, true], // Left
  0xff52: [0x48, true], // Up
  0xff53: [0x4d, true], // Right
  0xff54: [0x50, true], // Down
  0xff55: [0x49, true], // Page_Up
  0xff56: [0x51, true], // Page_Down
  0xff57: [0x4f, true], // End
  0xff63: [0x52, true], // Insert
  0xffe1: [0x2a], // Shift_L
  0xffe2: [0x36], // Shift_R
  0xffe3: [0x1d], // Control_L
  0xffe4: [0x1d, true], // Control_R
  0xffe5: [0x3a], // Caps_Lock
  0xffe9: [0x38], // Alt_L
  0xffea: [0x38, true], // Alt_R
  0xffeb: [0x5b, true], // Super_L
  0xffec: [0x5c, true], // Super_R
  0xff67: [0x5d, true], // Menu
};
for (let f = 0; f < 10; f++) special[0xffbe + f] = [0x3b + f]; // F1..F10
special[0xffc8] = [0x57]; // F11
special[0xffc9] = [0x58]; // F12

/** Each printable ASCII character's key on a US keyboard (shifted ones on the same key). */
const rows: [string, string, number][] = [
  ['1234567890-=', '!@#$%^&*()_+', 0x02],
  ['qwertyuiop[]', 'QWERTYUIOP{}', 0x10],
  ["asdfghjkl;'`", 'ASDFGHJKL:"~', 0x1e],
  ['\\zxcvbnm,./', '|ZXCVBNM<>?', 0x2b],
];
const printable = new Map<number, number>([[0x20, 0x39]]);
/** The printable characters typed with Shift on a US keyboard (Caps Lock aside). */
const shiftedChars = new Set<number>();
for (const [plain, shifted, first] of rows) {
  [...plain].forEach((char, i) => printable.set(char.charCodeAt(0), first + i));
  [...shifted].forEach((char, i) => {
    printable.set(char.charCodeAt(0), first + i);
    shiftedChars.add(char.charCodeAt(0));
  });
}
const isLetter = (keysym: number) => (keysym | 0x20) >= 0x61 && (keysym | 0x20) <= 0x7a;
const shiftKeysyms = [0xffe1, 0xffe2];

export function keyEvent(keysym: number, down: boolean): InputEvent | undefined {
  const key = special[keysym];
  if (key) return { type: 'scancode', code: key[0], extended: key[1] ?? false, down };
  const code = printable.get(keysym);
  if (code !== undefined) return { type: 'scancode', code, extended: false, down };
  // Latin-1 keysyms are their code points; others carry the code point above 0x01000000.
  const codePoint =
    keysym >= 0xa0 && keysym <= 0xff ? keysym : keysym >= 0x1000100 ? keysym - 0x1000000 : 0;
  if (codePoint > 0 && codePoint <= 0xffff) return { type: 'unicode', code: codePoint, down };
  return undefined;
}

/**
 * Key events with Shift made right for the US keyboard the scancodes are for: a shifted
 * character typed without Shift held (a browser layout, on-screen keyboard or script that
 * sends `$` alone) gets Shift around it; an unshifted one typed with Shift held (`1` is Shift
 * and the & key on a French keyboard) gets Shift lifted around it. Otherwise the desktop would
 * type `4` for `$`, or `!` for `1`.
 */
export class KeyboardState {
  readonly #shiftHeld = new Set<number>();
  #capsLock = false;

  events(keysym: number, down: boolean): InputEvent[] {
    if (shiftKeysyms.includes(keysym)) {
      if (down) this.#shiftHeld.add(keysym);
      else this.#shiftHeld.delete(keysym);
    }
    if (keysym === 0xffe5 && down) this.#capsLock = !this.#capsLock;
    const event = keyEvent(keysym, down);
    if (!event) return [];
    // Only presses of characters with a place on the keyboard; a release is the key's either way.
    if (!down || event.type !== 'scancode' || !printable.has(keysym) || keysym === 0x20) {
      return [event];
    }
    const wanted = isLetter(keysym)
      ? shiftedChars.has(keysym) !== this.#capsLock
      : shiftedChars.has(keysym);
    const held = this.#shiftHeld.size > 0;
    if (wanted === held) return [event];
    const shift = (shiftDown: boolean): InputEvent[] =>
      (held ? [...this.#shiftHeld] : [0xffe1]).map((k) => keyEvent(k, shiftDown)!);
    return held
      ? [...shift(false), event, ...shift(true)]
      : [...shift(true), event, ...shift(false)];
  }
}

/** RFB's button mask (bit 0 left, 1 middle, 2 right, 3/4 wheel) as RDP pointer events. */
export class PointerState {
  #buttons = 0;

  events(buttons: number, x: number, y: number): InputEvent[] {
    const events: InputEvent[] = [{ type: 'mouse', flags: 0x0800, x, y }]; // PTRFLAGS_MOVE
    const changed = buttons ^ this.#buttons;
    const rdpButton: [number, number][] = [
      [1, 0x1000], // left: BUTTON1
      [2, 0x4000], // middle: BUTTON3
      [4, 0x2000], // right: BUTTON2
    ];
    for (const [bit, flag] of rdpButton) {
      if (changed & bit)
        events.push({ type: 'mouse', flags: flag | (buttons & bit ? 0x8000 : 0), x, y });
    }
    // A wheel notch is a press (and release) of button 4 or 5: one event of ±120 per press.
    if (changed & buttons & 8) events.push({ type: 'mouse', flags: 0x0200 | 0x0078, x, y });
    if (changed & buttons & 16)
      events.push({ type: 'mouse', flags: 0x0200 | 0x0100 | 0x0088, x, y });
    this.#buttons = buttons;
    return events;
  }
}
