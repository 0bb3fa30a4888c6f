import type { AuditCode } from '@postern/contracts';
import { PayloadReader } from './my-wire.js';

/** Command bytes (COM_*) the proxy reads. */
export const Command = {
  quit: 0x01,
  initDb: 0x02,
  query: 0x03,
  createDb: 0x05,
  dropDb: 0x06,
  refresh: 0x07,
  shutdown: 0x08,
  processKill: 0x0c,
  debug: 0x0d,
  changeUser: 0x11,
  stmtPrepare: 0x16,
  stmtExecute: 0x17,
  stmtSendLongData: 0x18,
  stmtClose: 0x19,
  stmtReset: 0x1a,
  stmtFetch: 0x1c,
} as const;

/**
 * The database a `USE name` statement of its own moves to (backquotes and all), or undefined
 * for any other text. A `USE` inside a longer multi-statement text is not found here: the
 * database's own grants are the boundary there (docs/databases.md).
 */
export function useStatementSchema(text: string): string | undefined {
  const use = /^\s*use\s+(?:`((?:[^`]|``)+)`|([\w$\u0080-\uffff]+))\s*;?\s*$/iu.exec(text);
  if (!use) return undefined;
  return use[1] !== undefined ? use[1].replace(/``/g, '`') : use[2];
}

/** What the proxy knows of a prepared statement: its text and its parameters' types. */
interface Prepared {
  query: string;
  params: number;
  types?: Buffer;
}

export interface StatementEvent {
  code: AuditCode;
  fields: Record<string, unknown>;
}

/** Each parameter's text in the audit is cut here: the event is a record, not a copy of data. */
const maxParameterChars = 1024;

/**
 * Turns the client's commands into audit events (spec §8, database queries): `COM_QUERY` a
 * query, `COM_STMT_PREPARE`/`EXECUTE` with the statement's text and its bound parameters, and
 * the rest of the commands that change or end something. Statement ids come from the server's
 * answer to each prepare (`prepared`).
 */
export class MysqlStatements {
  readonly #prepared = new Map<number, Prepared>();

  /** The server's COM_STMT_PREPARE_OK for the prepare of `query`. */
  prepared(query: string, answer: Buffer): void {
    if (answer[0] !== 0x00 || answer.length < 12) return;
    this.#prepared.set(answer.readUInt32LE(1), { query, params: answer.readUInt16LE(7) });
  }

  event(payload: Buffer, truncated: boolean): StatementEvent | undefined {
    const cut = truncated ? '…' : '';
    const text = () => payload.toString('utf8', 1) + cut;
    const id = () => (payload.length >= 5 ? payload.readUInt32LE(1) : 0);
    switch (payload[0]) {
      case Command.query:
        return { code: 'TDB02I', fields: { query: text() } };
      case Command.stmtPrepare:
        return { code: 'TMY00I', fields: { query: text() } };
      case Command.stmtExecute: {
        const statement = this.#prepared.get(id());
        return {
          code: 'TMY01I',
          fields: {
            statement_id: id(),
            query: statement?.query ?? '',
            parameters: truncated || !statement ? [] : this.#parameters(payload, statement),
          },
        };
      }
      case Command.stmtSendLongData:
        return {
          code: 'TMY02I',
          fields: {
            statement_id: id(),
            parameter_id: payload.length >= 7 ? payload.readUInt16LE(5) : 0,
            data_size: Math.max(0, payload.length - 7),
          },
        };
      case Command.stmtClose:
        this.#prepared.delete(id());
        return { code: 'TMY03I', fields: { statement_id: id() } };
      case Command.stmtReset:
        return { code: 'TMY04I', fields: { statement_id: id() } };
      case Command.stmtFetch:
        return {
          code: 'TMY05I',
          fields: {
            statement_id: id(),
            rows_count: payload.length >= 9 ? payload.readUInt32LE(5) : 0,
          },
        };
      case Command.initDb:
        return { code: 'TMY06I', fields: { schema_name: text() } };
      case Command.createDb:
        return { code: 'TMY07I', fields: { schema_name: text() } };
      case Command.dropDb:
        return { code: 'TMY08I', fields: { schema_name: text() } };
      case Command.shutdown:
        return { code: 'TMY09I', fields: {} };
      case Command.processKill:
        return { code: 'TMY10I', fields: { process_id: id() } };
      case Command.debug:
        return { code: 'TMY11I', fields: {} };
      case Command.refresh:
        return { code: 'TMY12I', fields: { subcommand: payload[1] ?? 0 } };
      default:
        return undefined;
    }
  }

  /** The bound values of a COM_STMT_EXECUTE, as text; what cannot be read is left out. */
  #parameters(payload: Buffer, statement: Prepared): string[] {
    if (statement.params === 0) return [];
    try {
      const reader = new PayloadReader(payload);
      reader.bytes(1 + 4 + 1 + 4);
      const nulls = reader.bytes((statement.params + 7) >> 3);
      if (reader.u8() === 1) statement.types = Buffer.from(reader.bytes(statement.params * 2));
      const types = statement.types;
      if (!types) return [];
      const values: string[] = [];
      for (let index = 0; index < statement.params; index++) {
        const isNull = (nulls[index >> 3]! >> (index & 7)) & 1;
        values.push(
          isNull ? 'NULL' : binaryValue(reader, types[index * 2]!, types[index * 2 + 1]! & 0x80),
        );
      }
      return values;
    } catch {
      return [];
    }
  }
}

/** One value of the binary protocol, by its column type (MYSQL_TYPE_*). */
function binaryValue(reader: PayloadReader, type: number, unsigned: number): string {
  const bytes = (count: number) => reader.bytes(count);
  switch (type) {
    case 0x01: // TINY
      return String(unsigned ? bytes(1).readUInt8(0) : bytes(1).readInt8(0));
    case 0x02: // SHORT
    case 0x0d: // YEAR
      return String(unsigned ? bytes(2).readUInt16LE(0) : bytes(2).readInt16LE(0));
    case 0x03: // LONG
    case 0x09: // INT24
      return String(unsigned ? bytes(4).readUInt32LE(0) : bytes(4).readInt32LE(0));
    case 0x08: // LONGLONG
      return String(unsigned ? bytes(8).readBigUInt64LE(0) : bytes(8).readBigInt64LE(0));
    case 0x04: // FLOAT
      return String(bytes(4).readFloatLE(0));
    case 0x05: // DOUBLE
      return String(bytes(8).readDoubleLE(0));
    case 0x06: // NULL
      return 'NULL';
    case 0x07: // TIMESTAMP
    case 0x0a: // DATE
    case 0x0c: // DATETIME
      return dateTime(bytes(reader.u8()));
    case 0x0b: // TIME
      return time(bytes(reader.u8()));
    default: {
      // Strings, blobs, decimals, JSON, enums, sets and geometry: length-encoded bytes.
      const value = reader.lenencBytes();
      if (value === null) return 'NULL';
      const textValue = value.toString('utf8', 0, Math.min(value.length, maxParameterChars));
      return value.length > maxParameterChars ? `${textValue}…` : textValue;
    }
  }
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

function dateTime(raw: Buffer): string {
  if (raw.length === 0) return '0000-00-00 00:00:00';
  const date = `${pad(raw.readUInt16LE(0), 4)}-${pad(raw[2]!)}-${pad(raw[3]!)}`;
  if (raw.length < 7) return date;
  const clock = `${pad(raw[4]!)}:${pad(raw[5]!)}:${pad(raw[6]!)}`;
  return raw.length >= 11 ? `${date} ${clock}.${pad(raw.readUInt32LE(7), 6)}` : `${date} ${clock}`;
}

function time(raw: Buffer): string {
  if (raw.length === 0) return '00:00:00';
  const sign = raw[0] ? '-' : '';
  const hours = raw.readUInt32LE(1) * 24 + raw[5]!;
  const clock = `${sign}${pad(hours)}:${pad(raw[6]!)}:${pad(raw[7]!)}`;
  return raw.length >= 12 ? `${clock}.${pad(raw.readUInt32LE(8), 6)}` : clock;
}
