import type { ChannelEvents, SessionChannel } from '../../../modules/sessions/session-channel.js';
import type { ConsoleClient } from './console-client.js';
import { LineEditor, type EditorAction } from './line-editor.js';

export interface SqlConsoleOptions {
  dbUser: string;
  /** The database's name in Postern, for the banner. */
  resource: string;
  /** The connection, in the database's dialect (pg-console-client.ts, my-console-client.ts). */
  client: ConsoleClient;
}

const help = [
  'Type SQL ending in ; to run it. Up and Down recall earlier statements.',
  '  \\dt        list tables        \\l   list databases',
  '  \\conninfo  this connection     \\q   quit (or Ctrl-D)',
  'Ctrl-C cancels a running statement.',
].join('\r\n');

/**
 * The browser's SQL console (docs/databases.md) as a session channel: the live session sends it
 * keystrokes and shows, records and mirrors what it writes, like any terminal. Statements run
 * through a client whose stream is the database's engine itself, so the same route checks,
 * per-statement audit, cancel path and lock checks apply as to psql or mariadb.
 */
export class SqlConsoleChannel implements SessionChannel {
  readonly #editor: LineEditor;
  readonly #client: ConsoleClient;
  #connected = false;
  #running = false;
  #queued: string[] = [];
  #closed = false;
  #events: ChannelEvents | undefined;

  constructor(private readonly options: SqlConsoleOptions) {
    this.#client = options.client;
    this.#editor = new LineEditor(options.client.database);
  }

  start(events: ChannelEvents): void {
    this.#events = events;
    // The session starts its channel before its first party joins (in the same turn of the
    // event loop), and output before that reaches nobody: the banner waits one turn.
    setImmediate(() => void this.#open());
  }

  write(data: string | Uint8Array): boolean {
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    this.#queued.push(...this.#editor.keys(text));
    this.#drain();
    return true;
  }

  pause(): void {}
  resume(): void {}
  resize(): void {}

  signal(name: string): void {
    if (name === 'INT' && this.#running) this.#client.cancel();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#connected = false;
    this.#client.end();
    this.#events?.exit({ code: 0 });
    this.#events?.closed();
  }

  heldBytes(): number {
    return 0;
  }

  #print(text: string): void {
    if (!this.#closed) this.#events?.output(Buffer.from(text, 'utf8'));
  }

  async #open(): Promise<void> {
    const { dbUser, resource } = this.options;
    this.#print(`Connecting to ${resource} as ${dbUser}, database ${this.#client.database}...\r\n`);
    try {
      await this.#client.connect({
        notice: (text) => this.#print(`${text}\r\n`),
        lost: (why) => this.#lost(why),
      });
    } catch (error) {
      this.#print(`\r\n${(error as Error).message}\r\n`);
      return this.close();
    }
    this.#connected = true;
    this.#print(`Connected. Type \\? for help.\r\n\r\n${this.#editor.prompt}`);
    this.#drain();
  }

  #lost(why: string): void {
    if (this.#closed) return;
    this.#print(`\r\nThe connection to the database ended: ${why}\r\n`);
    this.close();
  }

  /** Runs keystrokes until one starts a statement; the rest wait for its answer. */
  #drain(): void {
    // Echoes go out together: one frame for a pasted line, not one per character.
    let echoes = '';
    while (!this.#running && this.#connected && this.#queued.length > 0) {
      const key = this.#queued.shift()!;
      const { echo, action } = this.#editor.key(key);
      echoes += echo;
      if (action) {
        this.#print(echoes);
        echoes = '';
        this.#act(action);
      }
    }
    if (echoes) this.#print(echoes);
    // Ctrl-C must reach a running statement even when typed-ahead keys wait before it.
    if (this.#running && this.#queued.includes('\x03')) {
      this.#queued = this.#queued.filter((key) => key !== '\x03');
      this.#client.cancel();
    }
  }

  #act(action: EditorAction): void {
    switch (action.type) {
      case 'quit':
        return this.close();
      case 'cancel':
        return this.#print(this.#editor.prompt);
      case 'meta':
        return this.#meta(action.command);
      case 'statement':
        return this.#run(action.text);
    }
  }

  #meta(command: string): void {
    const [name] = command.split(/\s+/);
    if (name === '\\q') return this.close();
    if (name === '\\?') return this.#print(`${help}\r\n\r\n${this.#editor.prompt}`);
    if (name === '\\conninfo') {
      const { resource, dbUser } = this.options;
      return this.#print(
        `You are connected to database "${this.#client.database}" as user "${dbUser}" on ${resource} through Postern.\r\n${this.#editor.prompt}`,
      );
    }
    const query = this.#client.metaQueries[name ?? ''];
    if (query) return this.#run(query);
    this.#print(`invalid command ${name}: try \\? for help\r\n${this.#editor.prompt}`);
  }

  #run(text: string): void {
    this.#running = true;
    void this.#client.run(text).then((output) => {
      this.#running = false;
      // A statement may have moved the session to another database (`USE`): the prompt follows.
      this.#editor.database = this.#client.database;
      this.#print(`${output}${this.#editor.prompt}`);
      this.#drain();
    });
  }
}
