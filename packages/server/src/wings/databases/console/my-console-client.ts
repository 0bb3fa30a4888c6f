import mysql from 'mysql2';
import { useStatementSchema } from '../mysql/my-statements.js';
import {
  maxShownRows,
  type ConsoleClient,
  type ConsoleClientEvents,
  type OpenEngineStream,
} from './console-client.js';
import { formatResult } from './result-table.js';

/** DECIMAL, TINY, SHORT, LONG, FLOAT, DOUBLE, LONGLONG, INT24, NEWDECIMAL: right-aligned. */
const numericTypes = new Set([0, 1, 2, 3, 4, 5, 8, 9, 246]);

const metaQueries = {
  '\\dt': 'show full tables;',
  '\\l': 'show databases;',
};

interface Field {
  name: string;
  columnType?: number;
}

interface OkPacket {
  affectedRows?: number;
  info?: string;
  warningStatus?: number;
}

/**
 * The console's MySQL/MariaDB connection: a `mysql2` client whose stream is the MySQL engine
 * itself (the same greeting, route checks, per-statement audit and locks as the mariadb
 * client's), printing results as aligned tables and `Query OK, N rows affected` as the mariadb
 * client does, and cancelling with `KILL QUERY` on a second connection, as that client does.
 */
export class MysqlConsoleClient implements ConsoleClient {
  readonly metaQueries = metaQueries;
  #connection: mysql.Connection | undefined;
  #database: string;

  constructor(
    private readonly options: { dbUser: string; dbName: string; connect: OpenEngineStream },
  ) {
    this.#database = options.dbName;
  }

  get database(): string {
    return this.#database;
  }

  async connect(events: ConsoleClientEvents): Promise<void> {
    const connection = this.#open();
    // Listened to from the start: a failed sign-in may also be emitted as an error.
    let connected = false;
    connection.on('error', (error) => connected && events.lost(error.message));
    connection.on('end', () => connected && events.lost('the connection ended'));
    await new Promise<void>((resolve, reject) =>
      connection.connect((error) => (error ? reject(new Error(errorText(error))) : resolve())),
    );
    connected = true;
    this.#connection = connection;
  }

  run(text: string): Promise<string> {
    const connection = this.#connection;
    if (!connection) return Promise.resolve('');
    let output = '';
    // The result being read: its columns, the rows kept and the rows only counted.
    let fields: Field[] | undefined;
    let rows: (string | null)[][] = [];
    let omitted = 0;
    const flush = () => {
      if (fields) output += formatResult({ fields: columns(fields), rows, omitted, tag: '' });
      fields = undefined;
      rows = [];
      omitted = 0;
    };
    let failed = false;
    // Which statement's answer `fields` belongs to, to tell a result an error cut short.
    let fieldsOf = -1;
    return new Promise((resolve) => {
      const query = connection.query({ sql: text, rowsAsArray: true });
      query.on('fields', (next: Field[] | undefined) => {
        flush();
        fields = next;
        fieldsOf++;
      });
      query.on('result', (row: unknown) => {
        if (!fields) {
          output += formatResult({ fields: [], rows: [], omitted: 0, tag: okTag(row as OkPacket) });
        } else if (rows.length < maxShownRows) {
          rows.push(row as (string | null)[]);
        } else {
          omitted++;
        }
      });
      query.on('error', (error: Error) => {
        failed = true;
        // A result the error interrupted (a killed query) is dropped, as the mariadb client
        // shows only the error; one that ended before a later statement failed is shown.
        const answering = (query as unknown as { _resultIndex?: number })._resultIndex;
        if (answering === fieldsOf) fields = undefined;
        flush();
        output += `${errorText(error)}\r\n`;
        resolve(output);
      });
      query.on('end', () => {
        flush();
        const schema = useStatementSchema(text);
        if (!failed && schema !== undefined) this.#database = schema;
        resolve(output);
      });
    });
  }

  /** `KILL QUERY <this connection's id>` on a connection of its own, as the mariadb client does. */
  cancel(): void {
    const id = this.#connection?.threadId;
    if (!id) return;
    const killer = this.#open();
    killer.on('error', () => undefined);
    killer.query(`KILL QUERY ${id}`, () => killer.destroy());
  }

  end(): void {
    const connection = this.#connection;
    this.#connection = undefined;
    connection?.end(() => undefined);
  }

  #open(): mysql.Connection {
    return mysql.createConnection({
      user: this.options.dbUser,
      database: this.#database,
      stream: () => this.options.connect(),
      multipleStatements: true,
      // Values stay the server's text, as the mariadb client shows them.
      typeCast: (field) => field.string(),
    });
  }
}

function columns(fields: Field[]) {
  return fields.map((field) => ({
    name: field.name,
    numeric: numericTypes.has(field.columnType ?? -1),
  }));
}

/**
 * `Query OK, 2 rows affected` (`, 1 warning` when the server counted some, for SHOW WARNINGS),
 * and the server's info line (`Records: 2  Duplicates: 0 ...`), as the mariadb client prints.
 */
function okTag(ok: OkPacket): string {
  const count = ok.affectedRows ?? 0;
  const warnings = ok.warningStatus ?? 0;
  const line =
    `Query OK, ${count} ${count === 1 ? 'row' : 'rows'} affected` +
    (warnings > 0 ? `, ${warnings} ${warnings === 1 ? 'warning' : 'warnings'}` : '');
  return ok.info ? `${line}\r\n${ok.info}` : line;
}

/** The mariadb client's own shape: `ERROR 1146 (42S02): Table 'appdb.t' doesn't exist`. */
function errorText(error: unknown): string {
  const fields = error as { errno?: number; sqlState?: string; sqlMessage?: string };
  if (fields.errno === undefined || !fields.sqlState) return `ERROR: ${(error as Error).message}`;
  return `ERROR ${fields.errno} (${fields.sqlState}): ${fields.sqlMessage ?? ''}`;
}
