import type { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import pg from 'pg';
import type { ChannelEvents, SessionChannel } from '../../../modules/sessions/session-channel.js';
import { cancelRequest } from '../postgres/pg-wire.js';
import { LineEditor, type EditorAction } from './line-editor.js';
import { formatResult, type StatementResult } from './result-table.js';

/** Rows of one result the console keeps to show; the rest are counted, not held. */
export const maxShownRows = 1000;

/** Opens a stream to the database through the PostgreSQL engine, as this user. */
export type OpenEngineStream = () => Duplex;

export interface SqlConsoleOptions {
  dbName: string;
  dbUser: string;
  /** The database's name in Postern, for the banner. */
  resource: string;
  connect: OpenEngineStream;
}

const help = [
  'Type SQL ending in ; to run it. Up and Down recall earlier statements.',
  '  \\dt        list tables        \\l   list databases',
  '  \\conninfo  this connection     \\q   quit (or Ctrl-D)',
  'Ctrl-C cancels a running statement.',
].join('\r\n');

const metaQueries: Record<string, string> = {
  '\\dt':
    "select schemaname as schema, tablename as name, tableowner as owner from pg_tables where schemaname not in ('pg_catalog', 'information_schema') order by 1, 2;",
  '\\l': 'select datname as name, pg_get_userbyid(datdba) as owner from pg_database order by 1;',
};

/**
 * The browser's SQL console (docs/databases.md) as a session channel: the live session sends it
 * keystrokes and shows, records and mirrors what it writes, like any terminal. Statements run
 * through a `pg` client whose stream is the PostgreSQL engine itself, so the same route checks,
 * per-statement audit, cancel path and lock checks apply as to psql.
 */
export class SqlConsoleChannel implements SessionChannel {
  readonly #editor: LineEditor;
  #events: ChannelEvents | undefined;
  #client: pg.Client | undefined;
  #running = false;
  #queued: string[] = [];
  #closed = false;

  constructor(private readonly options: SqlConsoleOptions) {
    this.#editor = new LineEditor(options.dbName);
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
    if (name === 'INT') this.#cancel();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    void client?.end().catch(() => undefined);
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
    const { dbName, dbUser, resource } = this.options;
    this.#print(`Connecting to ${resource} as ${dbUser}, database ${dbName}...\r\n`);
    const client = new pg.Client({
      user: dbUser,
      database: dbName,
      stream: () => this.options.connect(),
      // Values stay the server's text, as psql shows them.
      types: { getTypeParser: () => (value: string) => value },
    });
    client.on('notice', (notice) =>
      this.#print(`${notice.severity ?? 'NOTICE'}:  ${notice.message}\r\n`),
    );
    client.on('error', (error) => this.#lost(error.message));
    client.on('end', () => this.#lost('the connection ended'));
    try {
      await client.connect();
    } catch (error) {
      this.#print(`\r\n${errorText(error)}\r\n`);
      return this.close();
    }
    this.#client = client;
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
    while (!this.#running && this.#client && this.#queued.length > 0) {
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
      this.#cancel();
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
      const { resource, dbUser, dbName } = this.options;
      return this.#print(
        `You are connected to database "${dbName}" as user "${dbUser}" on ${resource} through Postern.\r\n${this.#editor.prompt}`,
      );
    }
    const query = metaQueries[name ?? ''];
    if (query) return this.#run(query);
    this.#print(`invalid command ${name}: try \\? for help\r\n${this.#editor.prompt}`);
  }

  #run(text: string): void {
    const client = this.#client;
    if (!client) return;
    this.#running = true;
    const shown = new Map<object, (string | null)[][]>();
    const counted = new Map<object, number>();
    const query = new pg.Query({ text, rowMode: 'array' } as pg.QueryConfig);
    // Rows are shown from here and counted past the limit, never all held (a big table stays
    // a big count, not a big buffer in the proxy).
    query.on('row', (row: (string | null)[], result?: object) => {
      if (!result) return;
      const rows = shown.get(result) ?? [];
      shown.set(result, rows);
      if (rows.length < maxShownRows) rows.push(row);
      else counted.set(result, (counted.get(result) ?? 0) + 1);
    });
    // The whole command tag (pg's result keeps its first word only), one per statement.
    const tags: string[] = [];
    const connection = (client as unknown as { connection: EventEmitter }).connection;
    const onTag = (message: { text?: string }) => tags.push(message.text ?? '');
    connection.on('commandComplete', onTag);
    const finish = (output: string) => {
      connection.off('commandComplete', onTag);
      this.#running = false;
      this.#print(`${output}${this.#editor.prompt}`);
      this.#drain();
    };
    query.on('end', (results: unknown) => {
      const list = (Array.isArray(results) ? results : [results]) as (pg.QueryResult & object)[];
      finish(
        list
          .map((result, index) =>
            formatResult({
              tag: tags[index],
              command: result.command,
              rowCount: result.rowCount,
              fields: result.fields ?? [],
              rows: shown.get(result) ?? [],
              omitted: counted.get(result) ?? 0,
            } satisfies StatementResult),
          )
          .join(''),
      );
    });
    query.on('error', (error: Error) => finish(`${errorText(error)}\r\n`));
    client.query(query);
  }

  /** Ctrl-C: a cancel request on a connection of its own, through the engine, as psql does. */
  #cancel(): void {
    const client = this.#client as
      (pg.Client & { processID?: number; secretKey?: number }) | undefined;
    if (!this.#running || !client?.processID || client.secretKey === undefined) return;
    const secret = Buffer.alloc(4);
    secret.writeInt32BE(client.secretKey);
    const stream = this.options.connect();
    stream.on('error', () => undefined);
    stream.end(cancelRequest(client.processID, secret));
  }
}

function errorText(error: unknown): string {
  const fields = error as { severity?: string; message?: string; detail?: string; hint?: string };
  const lines = [`${fields.severity ?? 'ERROR'}:  ${fields.message ?? String(error)}`];
  if (fields.detail) lines.push(`DETAIL:  ${fields.detail}`);
  if (fields.hint) lines.push(`HINT:  ${fields.hint}`);
  return lines.join('\r\n');
}
