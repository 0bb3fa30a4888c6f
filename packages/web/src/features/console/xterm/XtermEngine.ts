import '@xterm/xterm/css/xterm.css';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { Terminal, type IDisposable } from '@xterm/xterm';
import {
  shortcutOf,
  type ShortcutAction,
  type TerminalEngine,
  type TerminalEngineOptions,
  type TerminalSize,
} from '../terminalEngine';
import { openLink } from './links';
import { chooseRenderer } from './renderer';

/** Refit this long after the container stops changing size (reference §2.4). */
const fitDebounceMs = 200;

/**
 * xterm.js behind the console's TerminalEngine: fit on container resize, the search addon,
 * http(s)-only links, and the WebGL renderer only on a real GPU. No clipboard addon: output
 * can never write the clipboard (OSC 52); copy and paste happen only on the user's shortcut or
 * menu choice.
 */
export class XtermEngine implements TerminalEngine {
  private readonly term: Terminal;
  private readonly fitAddon = new FitAddon();
  private readonly searchAddon = new SearchAddon();
  private readonly disposables: IDisposable[] = [];
  private resizeObserver: ResizeObserver | undefined;
  private fitTimer: ReturnType<typeof setTimeout> | undefined;
  private lastReported: TerminalSize | undefined;
  private resizeListeners: ((size: TerminalSize) => void)[] = [];
  private shortcutListeners: ((action: ShortcutAction) => void)[] = [];
  private disposed = false;

  constructor(options: TerminalEngineOptions) {
    this.term = new Terminal({
      fontSize: options.fontSize,
      fontFamily: options.fontFamily,
      scrollback: options.scrollback,
      disableStdin: options.readOnly && !options.moderator,
      cursorBlink: !options.readOnly,
      allowProposedApi: false,
      // OSC 8 hyperlinks: http(s) only, opened without access to this page.
      linkHandler: {
        allowNonHttpProtocols: false,
        activate: (_event, uri) => openLink(uri),
      },
      theme: { background: '#1b1b22', foreground: '#e6e6ef', cursor: '#bfacff' },
    });
    this.term.loadAddon(this.fitAddon);
    this.term.loadAddon(this.searchAddon);
    this.term.loadAddon(new WebLinksAddon((_event, uri) => openLink(uri)));
    this.term.attachCustomKeyEventHandler((event) => {
      const action = shortcutOf(event);
      if (!action) return true;
      // Ours, on every event type of the key, so xterm never sends it on; the browser's own
      // use of the combination (devtools) is stopped too.
      event.preventDefault();
      if (event.type === 'keydown') for (const listener of this.shortcutListeners) listener(action);
      return false;
    });
  }

  mount(container: HTMLElement): void {
    this.term.open(container);
    this.useBestRenderer();
    this.fit();
    this.resizeObserver = new ResizeObserver(() => {
      clearTimeout(this.fitTimer);
      this.fitTimer = setTimeout(() => this.fit(), fitDebounceMs);
    });
    this.resizeObserver.observe(container);
  }

  private useBestRenderer(): void {
    if (chooseRenderer() !== 'webgl') return;
    void import('@xterm/addon-webgl')
      .then(({ WebglAddon }) => {
        if (this.disposed) return;
        const webgl = new WebglAddon();
        // A lost context (GPU reset, too many contexts): back to the DOM renderer.
        webgl.onContextLoss(() => webgl.dispose());
        this.term.loadAddon(webgl);
      })
      .catch(() => {
        // WebGL refused at the last moment: the DOM renderer stays.
      });
  }

  size(): TerminalSize {
    return { cols: this.term.cols, rows: this.term.rows };
  }

  fit(): void {
    if (this.disposed) return;
    // A hidden tab has no size: keep the current one until it is shown.
    const proposed = this.fitAddon.proposeDimensions();
    if (!proposed || !Number.isFinite(proposed.cols) || proposed.cols < 2 || proposed.rows < 1) {
      return;
    }
    this.fitAddon.fit();
    const size = this.size();
    if (this.lastReported?.cols === size.cols && this.lastReported.rows === size.rows) return;
    this.lastReported = size;
    for (const listener of this.resizeListeners) listener(size);
  }

  resize(size: TerminalSize): void {
    if (size.cols === this.term.cols && size.rows === this.term.rows) return;
    this.term.resize(size.cols, size.rows);
  }

  setFontSize(px: number): void {
    if (this.term.options.fontSize === px) return;
    this.term.options.fontSize = px;
    this.fit();
  }

  write(data: string, done: () => void): void {
    if (this.disposed) return;
    this.term.write(data, done);
  }

  onData(listener: (data: string) => void): void {
    this.disposables.push(this.term.onData(listener));
  }

  onResize(listener: (size: TerminalSize) => void): void {
    this.resizeListeners.push(listener);
  }

  onShortcut(listener: (action: ShortcutAction) => void): void {
    this.shortcutListeners.push(listener);
  }

  getSelection(): string {
    return this.term.getSelection();
  }

  paste(text: string): void {
    if (!this.term.options.disableStdin) this.term.paste(text);
  }

  findNext(term: string): boolean {
    return this.searchAddon.findNext(term);
  }

  findPrevious(term: string): boolean {
    return this.searchAddon.findPrevious(term);
  }

  clearFind(): void {
    this.searchAddon.clearDecorations();
    this.term.clearSelection();
  }

  focus(): void {
    this.term.focus();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    clearTimeout(this.fitTimer);
    this.resizeObserver?.disconnect();
    for (const d of this.disposables) d.dispose();
    this.resizeListeners = [];
    this.shortcutListeners = [];
    this.term.dispose();
  }
}
