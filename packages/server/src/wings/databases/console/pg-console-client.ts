import type { EventEmitter } from 'node:events';
import pg from 'pg';
import { cancelRequest } from '../postgres/pg-wire.js';
import {
  maxShownRows,
  type ConsoleClient,
  type ConsoleClientEvents,
  type OpenEngineStream,
} from './console-client.js';
import { formatResult, type StatementResult } from './result-table.js';

/** int2, int4, int8, oid, float4, float8, numeric, money: right-aligned, as psql does. */
const numericTypes = new Set([20, 21, 23, 26, 700, 701, 790, 1700]);

const metaQueries = {
  '\\dt':
    "select schemaname as schema, tablename as name, tableowner as owner from pg_tables where schemaname not in ('pg_catalog', 'information_schema') order by 1, 2;",
  '\\l': 'select datname as name, pg_get_userbyid(datdba) as owner from pg_database order by 1;',
};

/**
 * The console's PostgreSQL connection: a `pg` client whose stream is the PostgreSQL engine
 * itself, printing as psql does, and cancelling with a CancelRequest through the engine.
 */
export class PostgresConsoleClient implements ConsoleClient {
  readonly metaQueries = metaQueries;
  #client: (pg.Client & { processID?: number; secretKey?: number }) | undefined;

  constructor(
    private readonly options: { dbUser: string; dbName: string; connect: OpenEngineStream },
  ) {}

  get database(): string {
    return this.options.dbName;
  }

  async connect(events: ConsoleClientEvents): Promise<void> {
    const client = new pg.Client({
      user: this.options.dbUser,
      database: this.options.dbName,
      stream: () => this.options.connect(),
      // Values stay the server's text, as psql shows them.
      types: { getTypeParser: () => (value: string) => value },
    });
    client.on('notice', (notice) =>
      events.notice(`${notice.severity ?? 'NOTICE'}:  ${notice.message}`),
    );
    client.on('error', (error) => events.lost(error.message));
    client.on('end', () => events.lost('the connection ended'));
    try {
      await client.connect();
    } catch (error) {
      throw new Error(errorText(error));
    }
    this.#client = client;
  }

  run(text: string): Promise<string> {
    const client = this.#client;
    if (!client) return Promise.resolve('');
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
    return new Promise((resolve) => {
      const finish = (output: string) => {
        connection.off('commandComplete', onTag);
        resolve(output);
      };
      query.on('end', (results: unknown) => {
        const list = (Array.isArray(results) ? results : [results]) as (pg.QueryResult & object)[];
        finish(
          list
            .map((result, index) =>
              formatResult({
                tag: tags[index] ?? commandTag(result.command, result.rowCount),
                fields: (result.fields ?? []).map((field) => ({
                  name: field.name,
                  numeric: numericTypes.has(field.dataTypeID),
                })),
                rows: shown.get(result) ?? [],
                omitted: counted.get(result) ?? 0,
              } satisfies StatementResult),
            )
            .join(''),
        );
      });
      query.on('error', (error: Error) => finish(`${errorText(error)}\r\n`));
      client.query(query);
    });
  }

  /** A CancelRequest on a connection of its own, through the engine, as psql sends on Ctrl-C. */
  cancel(): void {
    const client = this.#client;
    if (!client?.processID || client.secretKey === undefined) return;
    const secret = Buffer.alloc(4);
    secret.writeInt32BE(client.secretKey);
    const stream = this.options.connect();
    stream.on('error', () => undefined);
    stream.end(cancelRequest(client.processID, secret));
  }

  end(): void {
    const client = this.#client;
    this.#client = undefined;
    void client?.end().catch(() => undefined);
  }
}

/** psql's command tag, when the server's own was not seen: `INSERT 0 3`, `UPDATE 2`. */
export function commandTag(command: string | null, rowCount: number | null): string {
  const name = command ?? 'OK';
  if (name === 'INSERT') return `INSERT 0 ${rowCount ?? 0}`;
  if (['UPDATE', 'DELETE', 'SELECT', 'MOVE', 'FETCH', 'COPY', 'MERGE'].includes(name)) {
    return `${name} ${rowCount ?? 0}`;
  }
  return name;
}

function errorText(error: unknown): string {
  const fields = error as { severity?: string; message?: string; detail?: string; hint?: string };
  const lines = [`${fields.severity ?? 'ERROR'}:  ${fields.message ?? String(error)}`];
  if (fields.detail) lines.push(`DETAIL:  ${fields.detail}`);
  if (fields.hint) lines.push(`HINT:  ${fields.hint}`);
  return lines.join('\r\n');
}
