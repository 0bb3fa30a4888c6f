/**
 * The few PostgreSQL wire messages the proxy reads or writes itself (protocol 3.0, "Message
 * Formats" in the PostgreSQL docs). Everything else passes through untouched.
 */

export const sslRequestCode = 80877103;
export const gssEncRequestCode = 80877104;
export const cancelRequestCode = 80877102;
export const protocolVersion3 = 196608;

/** The largest message the proxy accepts from a client, header included (PostgreSQL's own cap). */
export const maxMessageBytes = 1024 * 1024 * 1024;
/** The largest startup packet: PostgreSQL refuses anything above 10 000 bytes too. */
export const maxStartupBytes = 10_000;

export type StartupPacket =
  | { type: 'ssl' }
  | { type: 'gssenc' }
  | { type: 'cancel'; pid: number; secret: Buffer }
  | { type: 'startup'; params: Map<string, string> }
  | { type: 'unsupported'; code: number };

/** Reads a startup-phase packet (no type byte): `body` is the whole packet after its length. */
export function parseStartupPacket(body: Buffer): StartupPacket {
  if (body.length < 4) throw new WireError('the startup packet is too short');
  const code = body.readInt32BE(0);
  if (code === sslRequestCode) return { type: 'ssl' };
  if (code === gssEncRequestCode) return { type: 'gssenc' };
  if (code === cancelRequestCode) {
    if (body.length < 12) throw new WireError('the cancel request is too short');
    return { type: 'cancel', pid: body.readInt32BE(4), secret: Buffer.from(body.subarray(8)) };
  }
  if (code !== protocolVersion3) return { type: 'unsupported', code };
  const params = new Map<string, string>();
  let at = 4;
  for (;;) {
    const nameEnd = body.indexOf(0, at);
    if (nameEnd < 0) throw new WireError('the startup packet is not terminated');
    if (nameEnd === at) break;
    const valueEnd = body.indexOf(0, nameEnd + 1);
    if (valueEnd < 0) throw new WireError('a startup parameter has no value');
    params.set(body.toString('utf8', at, nameEnd), body.toString('utf8', nameEnd + 1, valueEnd));
    at = valueEnd + 1;
  }
  return { type: 'startup', params };
}

export function startupMessage(params: ReadonlyMap<string, string>): Buffer {
  const parts: Buffer[] = [int32(protocolVersion3)];
  for (const [name, value] of params) parts.push(cString(name), cString(value));
  parts.push(Buffer.from([0]));
  return withLength(Buffer.concat(parts));
}

export const sslRequest = (): Buffer => withLength(int32(sslRequestCode));

export function cancelRequest(pid: number, secret: Buffer): Buffer {
  return withLength(Buffer.concat([int32(cancelRequestCode), int32(pid), secret]));
}

/** `BackendKeyData`: what a client keeps to cancel its queries later. */
export function backendKeyData(pid: number, secret: Buffer): Buffer {
  return message('K', Buffer.concat([int32(pid), secret]));
}

export interface ErrorFields {
  severity: 'FATAL' | 'ERROR';
  /** SQLSTATE, e.g. 28000 invalid_authorization_specification. */
  code: string;
  message: string;
  detail?: string;
  hint?: string;
}

/** `ErrorResponse`, as the database itself would send it. */
export function errorResponse(fields: ErrorFields): Buffer {
  const parts = [
    field('S', fields.severity),
    field('V', fields.severity),
    field('C', fields.code),
    field('M', fields.message),
  ];
  if (fields.detail) parts.push(field('D', fields.detail));
  if (fields.hint) parts.push(field('H', fields.hint));
  parts.push(Buffer.from([0]));
  return message('E', Buffer.concat(parts));
}

/** The fields of an `ErrorResponse` or `NoticeResponse` body, by their one-letter codes. */
export function readErrorFields(body: Buffer): Map<string, string> {
  const fields = new Map<string, string>();
  let at = 0;
  while (at < body.length && body[at] !== 0) {
    const end = body.indexOf(0, at + 1);
    if (end < 0) break;
    fields.set(String.fromCharCode(body[at]!), body.toString('utf8', at + 1, end));
    at = end + 1;
  }
  return fields;
}

/** A NUL-terminated string at `at`, and where the next field starts. */
export function readCString(body: Buffer, at: number): { value: string; next: number } {
  const end = body.indexOf(0, at);
  if (end < 0) throw new WireError('a string is not terminated');
  return { value: body.toString('utf8', at, end), next: end + 1 };
}

export function message(type: string, body: Buffer): Buffer {
  const header = Buffer.allocUnsafe(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** A client or server broke the protocol: the connection ends, the process does not. */
export class WireError extends Error {}

function withLength(body: Buffer): Buffer {
  return Buffer.concat([int32(body.length + 4), body]);
}

function int32(value: number): Buffer {
  const buffer = Buffer.allocUnsafe(4);
  buffer.writeInt32BE(value, 0);
  return buffer;
}

const cString = (text: string) => Buffer.from(`${text}\0`, 'utf8');
const field = (code: string, value: string) => Buffer.from(`${code}${value}\0`, 'utf8');
