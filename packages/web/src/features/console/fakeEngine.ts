import type {
  ShortcutAction,
  TerminalEngine,
  TerminalEngineLoader,
  TerminalEngineOptions,
  TerminalSize,
} from './terminalEngine';

/**
 * A terminal for jsdom tests (xterm does not render there): keeps what is written as text,
 * confirms writes at once, and lets a test type, resize and press shortcuts.
 */
export class FakeEngine implements TerminalEngine {
  text = '';
  mountedIn: HTMLElement | undefined;
  disposed = false;
  selection = '';
  pasted: string[] = [];
  currentSize: TerminalSize = { cols: 80, rows: 24 };
  fontSize: number;
  private dataListeners: ((data: string) => void)[] = [];
  private resizeListeners: ((size: TerminalSize) => void)[] = [];
  private shortcutListeners: ((action: ShortcutAction) => void)[] = [];

  constructor(readonly options: TerminalEngineOptions) {
    this.fontSize = options.fontSize;
  }

  mount(container: HTMLElement) {
    this.mountedIn = container;
  }
  size() {
    return this.currentSize;
  }
  fit() {}
  resize(size: TerminalSize) {
    this.currentSize = size;
  }
  setFontSize(px: number) {
    this.fontSize = px;
  }
  write(data: string, done: () => void) {
    this.text += data;
    done();
  }
  onData(listener: (data: string) => void) {
    this.dataListeners.push(listener);
  }
  onResize(listener: (size: TerminalSize) => void) {
    this.resizeListeners.push(listener);
  }
  onShortcut(listener: (action: ShortcutAction) => void) {
    this.shortcutListeners.push(listener);
  }
  getSelection() {
    return this.selection;
  }
  paste(text: string) {
    if (this.options.readOnly) return;
    this.pasted.push(text);
    this.type(text);
  }
  findNext(term: string) {
    return this.text.includes(term);
  }
  findPrevious(term: string) {
    return this.text.includes(term);
  }
  clearFind() {}
  focus() {}
  dispose() {
    this.disposed = true;
  }

  // The test's side.
  /** Keystrokes, even in a read-only terminal: the client must be the one to drop them. */
  type(data: string) {
    for (const l of this.dataListeners) l(data);
  }
  fitTo(size: TerminalSize) {
    this.currentSize = size;
    for (const l of this.resizeListeners) l(size);
  }
  press(action: ShortcutAction) {
    for (const l of this.shortcutListeners) l(action);
  }
  /** The text with escape sequences removed. */
  plain() {
    // eslint-disable-next-line no-control-regex
    return this.text.replace(/\x1b\[[0-9;]*m/g, '');
  }
}

export function fakeEngines() {
  const engines: FakeEngine[] = [];
  const load: TerminalEngineLoader = async (options) => {
    const engine = new FakeEngine(options);
    engines.push(engine);
    return engine;
  };
  return { engines, load };
}

/** Every FakeEngine the faked xterm loader (withFakeXterm) handed out; cleared per test. */
export const fakeXtermEngines: FakeEngine[] = [];

/**
 * The factory of a test file's `vi.mock` of terminalEngine, for pages that load xterm themselves
 * (it does not render in jsdom): the real module, whose xterm loader hands out FakeEngines, kept
 * in `fakeXtermEngines`. vi.mock is hoisted per file, so each file still names the module:
 *
 *   vi.mock('./terminalEngine', async (original) => (await import('./fakeEngine')).withFakeXterm(original));
 */
export async function withFakeXterm(importOriginal: () => Promise<object>) {
  const loadXtermEngine: TerminalEngineLoader = async (options) => {
    const engine = new FakeEngine(options);
    fakeXtermEngines.push(engine);
    return engine;
  };
  return { ...(await importOriginal()), loadXtermEngine };
}
