import type { AuditCode } from '@postern/contracts';
import { readCString, WireError } from './pg-wire.js';

/** The frontend messages that are audited, one event each (spec §8, database queries). */
export const auditedMessageTypes = new Set(['Q', 'P', 'B', 'E', 'F']);

export interface StatementEvent {
  code: AuditCode;
  fields: Record<string, unknown>;
}

/**
 * Reads one audited frontend message into its audit event: `Q` a simple query; `P`, `B`, `E` the
 * extended protocol's parse, bind (with its parameters as text) and execute; `F` a function call.
 * `portals` remembers which statement each portal was bound from, so an execute names it.
 */
export function statementEvent(
  type: string,
  body: Buffer,
  truncated: boolean,
  portals: Map<string, string>,
): StatementEvent | undefined {
  const cut = truncated ? '…' : '';
  switch (type) {
    case 'Q': {
      const end = body.indexOf(0);
      const query = body.toString('utf8', 0, end < 0 ? body.length : end);
      return { code: 'TDB02I', fields: { query: query + cut } };
    }
    case 'P': {
      const name = readCString(body, 0);
      const end = body.indexOf(0, name.next);
      const query = body.toString('utf8', name.next, end < 0 ? body.length : end);
      return { code: 'TPG00I', fields: { statement_name: name.value, query: query + cut } };
    }
    case 'B': {
      const portal = readCString(body, 0);
      const statement = readCString(body, portal.next);
      portals.set(portal.value, statement.value);
      return {
        code: 'TPG01I',
        fields: {
          portal_name: portal.value,
          statement_name: statement.value,
          parameters: truncated ? [] : bindParameters(body, statement.next),
        },
      };
    }
    case 'E': {
      const portal = readCString(body, 0);
      return {
        code: 'TPG02I',
        fields: { portal_name: portal.value, statement_name: portals.get(portal.value) ?? '' },
      };
    }
    case 'F':
      if (body.length < 4) throw new WireError('a function call is too short');
      return { code: 'TPG04I', fields: { function_oid: String(body.readUInt32BE(0)) } };
    default:
      return undefined;
  }
}

/** A Bind's parameter values: text ones as they are, binary ones as `\x` and hex, NULL as null. */
function bindParameters(body: Buffer, at: number): Array<string | null> {
  const formatCount = body.readInt16BE(at);
  const formats: number[] = [];
  at += 2;
  for (let n = 0; n < formatCount; n++, at += 2) formats.push(body.readInt16BE(at));
  const count = body.readInt16BE(at);
  at += 2;
  const values: Array<string | null> = [];
  for (let n = 0; n < count; n++) {
    const length = body.readInt32BE(at);
    at += 4;
    if (length < 0) {
      values.push(null);
      continue;
    }
    const binary = (formatCount === 1 ? formats[0] : formats[n]) === 1;
    const value = body.subarray(at, at + length);
    values.push(binary ? `\\x${value.toString('hex')}` : value.toString('utf8'));
    at += length;
  }
  return values;
}
