import type { OutputSink } from './tty';

/**
 * What a terminal tab needs from a terminal emulator. The console's is xterm.js
 * (xterm/XtermEngine.ts, loaded on demand); tests use a fake, since xterm does not render in jsdom.
 */
export interface TerminalSize {
  cols: number;
  rows: number;
}

export type ShortcutAction = 'copy' | 'paste' | 'find';

export interface TerminalEngineOptions {
  fontSize: number;
  /** A CSS font-family list (Console Settings). */
  fontFamily: string;
  /** Lines kept above the screen (Console Settings, else GRV_CONFIG ui.scrollbackLines). */
  scrollback: number;
  /** Observers: input is off. */
  readOnly: boolean;
  /**
   * A moderator: read-only too, but keys still reach the session's client, which passes `t`
   * alone (it ends the session) and drops the rest.
   */
  moderator?: boolean;
}

export interface TerminalEngine extends OutputSink {
  /** Renders into the element and fits it. */
  mount(container: HTMLElement): void;
  size(): TerminalSize;
  /** Fits the terminal to its container now (e.g. when its tab is shown again). */
  fit(): void;
  /** Another party's size: the terminal follows it. */
  resize(size: TerminalSize): void;
  setFontSize(px: number): void;
  /** Keystrokes and pasted text. */
  onData(listener: (data: string) => void): void;
  /** The fitted size changed (after the container settles, debounced). */
  onResize(listener: (size: TerminalSize) => void): void;
  /** Ctrl/Cmd+Shift+C, V or F pressed in the terminal. */
  onShortcut(listener: (action: ShortcutAction) => void): void;
  getSelection(): string;
  /** Pastes as typed input (bracketed when the program asked for it). */
  paste(text: string): void;
  findNext(term: string): boolean;
  findPrevious(term: string): boolean;
  clearFind(): void;
  focus(): void;
  dispose(): void;
}

export type TerminalEngineLoader = (options: TerminalEngineOptions) => Promise<TerminalEngine>;

/** xterm and its addons load only when a terminal opens: never on the login route. */
export const loadXtermEngine: TerminalEngineLoader = async (options) => {
  const { XtermEngine } = await import('./xterm/XtermEngine');
  return new XtermEngine(options);
};

/**
 * The terminal shortcuts: Ctrl+Shift (Cmd+Shift on macOS) with C (copy), V (paste) or F (find).
 * Plain Ctrl+C and Ctrl+V stay with the remote program (interrupt, literal next).
 */
export function shortcutOf(event: {
  key: string;
  code?: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}): ShortcutAction | undefined {
  if (!(event.ctrlKey || event.metaKey) || !event.shiftKey || event.altKey) return undefined;
  const key = event.code?.startsWith('Key') ? event.code.slice(3) : event.key.toUpperCase();
  if (key === 'C') return 'copy';
  if (key === 'V') return 'paste';
  if (key === 'F') return 'find';
  return undefined;
}
