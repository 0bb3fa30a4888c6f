/** What the editor asks its owner to do after a keystroke. */
export type EditorAction =
  | { type: 'statement'; text: string }
  | { type: 'meta'; command: string }
  | { type: 'cancel' }
  | { type: 'quit' };

/**
 * The SQL console's line editing, as psql's feels: typed characters echo, Backspace erases,
 * Up and Down walk the history, Enter on a line that does not end a statement continues it on
 * the next line (`->` prompt), a line starting with a backslash is a meta command, Ctrl-C drops
 * the statement being typed, Ctrl-D on an empty line quits. Pure: it returns what to echo and
 * what to run, and the channel does the rest.
 */
export class LineEditor {
  #line = '';
  #lines: string[] = [];
  readonly #history: string[] = [];
  #historyAt = 0;
  /** An escape sequence cut by the end of an input chunk. */
  #pendingEscape = '';

  /** The database the prompt names; the owner updates it when a statement moves the session. */
  constructor(public database: string) {}

  get prompt(): string {
    return `${this.database}${this.#lines.length > 0 ? '->' : '=>'} `;
  }

  get history(): readonly string[] {
    return this.#history;
  }

  /**
   * Feeds one keystroke (or escape sequence); returns the text to echo and an action when the
   * keystroke completes one.
   */
  key(key: string): { echo: string; action?: EditorAction } {
    switch (key) {
      case '\r':
      case '\n':
        return this.#enter();
      case '\x7f':
      case '\b':
        if (!this.#line) return { echo: '' };
        this.#line = [...this.#line].slice(0, -1).join('');
        return { echo: '\b \b' };
      case '\x03':
        this.#line = '';
        this.#lines = [];
        return { echo: '^C\r\n', action: { type: 'cancel' } };
      case '\x04':
        if (this.#line || this.#lines.length > 0) return { echo: '' };
        return { echo: '\\q\r\n', action: { type: 'quit' } };
      case '\x1b[A':
        return this.#recall(-1);
      case '\x1b[B':
        return this.#recall(1);
      default:
        // Other control keys and escape sequences (arrows left and right, function keys) are
        // ignored rather than typed into the statement.
        if (key.startsWith('\x1b') || key < ' ') return { echo: '' };
        this.#line += key;
        return { echo: key };
    }
  }

  /** Splits raw terminal input into keystrokes: characters and whole escape sequences. */
  keys(input: string): string[] {
    const text = this.#pendingEscape + input;
    this.#pendingEscape = '';
    const keys: string[] = [];
    for (let at = 0; at < text.length;) {
      if (text[at] === '\x1b') {
        // eslint-disable-next-line no-control-regex -- the escape byte is what this matches
        const sequence = /^\x1b(\[[0-9;]*[A-Za-z~]|O[A-Za-z]|.)?/.exec(text.slice(at))![0];
        if (sequence.length === 1 && at + 1 >= text.length) {
          this.#pendingEscape = sequence;
          break;
        }
        keys.push(sequence);
        at += sequence.length;
        continue;
      }
      const char = String.fromCodePoint(text.codePointAt(at)!);
      // A pasted CRLF is one Enter.
      if (char === '\r' && text[at + 1] === '\n') at++;
      keys.push(char);
      at += char.length;
    }
    return keys;
  }

  #enter(): { echo: string; action?: EditorAction } {
    const line = this.#line;
    this.#line = '';
    if (this.#lines.length === 0 && line.trim().startsWith('\\')) {
      this.#remember(line.trim());
      return { echo: '\r\n', action: { type: 'meta', command: line.trim() } };
    }
    if (this.#lines.length === 0 && !line.trim()) return { echo: `\r\n${this.prompt}` };
    this.#lines.push(line);
    const text = this.#lines.join('\n');
    if (!text.trimEnd().endsWith(';')) return { echo: `\r\n${this.prompt}` };
    this.#lines = [];
    this.#remember(text.trim());
    return { echo: '\r\n', action: { type: 'statement', text: text.trim() } };
  }

  #remember(entry: string): void {
    if (this.#history.at(-1) !== entry) this.#history.push(entry);
    if (this.#history.length > 500) this.#history.shift();
    this.#historyAt = this.#history.length;
  }

  /** Replaces the line being typed with an earlier (or later) history entry. */
  #recall(step: number): { echo: string } {
    const next = this.#historyAt + step;
    if (next < 0 || next > this.#history.length) return { echo: '' };
    this.#historyAt = next;
    const erase = '\b \b'.repeat([...this.#line].length);
    // A multi-line entry comes back on one line, as psql's readline does.
    this.#line = (this.#history[next] ?? '').replace(/\n/g, ' ');
    return { echo: erase + this.#line };
  }
}
