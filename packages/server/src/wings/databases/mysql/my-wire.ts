/**
 * The MySQL/MariaDB client/server protocol (protocol 41) as far as the proxy reads or writes it
 * itself: packet framing, length-encoded values, the greeting, the handshake response, OK and
 * ERR. Everything else passes through untouched. Names follow the MySQL internals manual.
 */

/** A packet's payload is at most 2^24 - 1 bytes; a longer one continues in the next packet. */
export const maxPayload = 0xffffff;

/** The largest handshake-phase packet the proxy reads (MySQL's own limit for it is similar). */
export const maxHandshakeBytes = 64 * 1024;

export const Capability = {
  longPassword: 1 << 0,
  foundRows: 1 << 1,
  longFlag: 1 << 2,
  connectWithDb: 1 << 3,
  noSchema: 1 << 4,
  compress: 1 << 5,
  odbc: 1 << 6,
  localFiles: 1 << 7,
  ignoreSpace: 1 << 8,
  protocol41: 1 << 9,
  interactive: 1 << 10,
  ssl: 1 << 11,
  ignoreSigpipe: 1 << 12,
  transactions: 1 << 13,
  secureConnection: 1 << 15,
  multiStatements: 1 << 16,
  multiResults: 1 << 17,
  psMultiResults: 1 << 18,
  pluginAuth: 1 << 19,
  connectAttrs: 1 << 20,
  pluginAuthLenencData: 1 << 21,
  canHandleExpiredPasswords: 1 << 22,
  sessionTrack: 1 << 23,
  deprecateEof: 1 << 24,
} as const;

/**
 * What the proxy offers the client. Compression, TLS on the local leg and the vendors' newer
 * extensions (MySQL's query attributes, MariaDB's extended metadata) are left out, so the client
 * speaks a dialect every MySQL 5.7+/8 and MariaDB 10.2+ server also speaks.
 */
export const offeredCapabilities =
  Capability.longPassword |
  Capability.foundRows |
  Capability.longFlag |
  Capability.connectWithDb |
  Capability.odbc |
  Capability.localFiles |
  Capability.ignoreSpace |
  Capability.protocol41 |
  Capability.interactive |
  Capability.ignoreSigpipe |
  Capability.transactions |
  Capability.secureConnection |
  Capability.multiStatements |
  Capability.multiResults |
  Capability.psMultiResults |
  Capability.pluginAuth |
  Capability.connectAttrs |
  Capability.pluginAuthLenencData |
  Capability.canHandleExpiredPasswords |
  Capability.sessionTrack |
  Capability.deprecateEof;

/** Flags that change how later packets look: client and server must agree on each. */
export const wireShapingCapabilities = [
  ['CLIENT_PROTOCOL_41', Capability.protocol41],
  ['CLIENT_MULTI_RESULTS', Capability.multiResults],
  ['CLIENT_PS_MULTI_RESULTS', Capability.psMultiResults],
  ['CLIENT_SESSION_TRACK', Capability.sessionTrack],
  ['CLIENT_DEPRECATE_EOF', Capability.deprecateEof],
] as const;

export class MysqlWireError extends Error {}

/** One packet: its sequence number and payload. */
export interface Packet {
  seq: number;
  payload: Buffer;
}

export function packet(seq: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUIntLE(payload.length, 0, 3);
  header[3] = seq & 0xff;
  return Buffer.concat([header, payload]);
}

/** Reads values off a payload from the front. */
export class PayloadReader {
  at = 0;
  constructor(readonly buffer: Buffer) {}

  get left(): number {
    return this.buffer.length - this.at;
  }

  #need(bytes: number): void {
    if (this.at + bytes > this.buffer.length) throw new MysqlWireError('a packet is too short');
  }

  u8(): number {
    this.#need(1);
    return this.buffer[this.at++]!;
  }

  u16(): number {
    this.#need(2);
    const value = this.buffer.readUInt16LE(this.at);
    this.at += 2;
    return value;
  }

  u32(): number {
    this.#need(4);
    const value = this.buffer.readUInt32LE(this.at);
    this.at += 4;
    return value;
  }

  bytes(count: number): Buffer {
    this.#need(count);
    const value = this.buffer.subarray(this.at, this.at + count);
    this.at += count;
    return value;
  }

  /** A NUL-terminated string; at the payload's end, the rest. */
  cString(): string {
    const end = this.buffer.indexOf(0, this.at);
    const stop = end < 0 ? this.buffer.length : end;
    const value = this.buffer.toString('utf8', this.at, stop);
    this.at = end < 0 ? stop : stop + 1;
    return value;
  }

  /** A length-encoded integer; null for the NULL marker (0xfb). */
  lenenc(): number | null {
    const first = this.u8();
    if (first < 0xfb) return first;
    if (first === 0xfb) return null;
    if (first === 0xfc) return this.u16();
    if (first === 0xfd) {
      this.#need(3);
      const value = this.buffer.readUIntLE(this.at, 3);
      this.at += 3;
      return value;
    }
    if (first === 0xfe) {
      this.#need(8);
      const value = Number(this.buffer.readBigUInt64LE(this.at));
      this.at += 8;
      return value;
    }
    throw new MysqlWireError('a length-encoded integer starts with 0xff');
  }

  lenencBytes(): Buffer | null {
    const length = this.lenenc();
    return length === null ? null : this.bytes(length);
  }

  rest(): Buffer {
    const value = this.buffer.subarray(this.at);
    this.at = this.buffer.length;
    return value;
  }
}

export function lenencInt(value: number): Buffer {
  if (value < 0xfb) return Buffer.from([value]);
  if (value <= 0xffff) {
    const out = Buffer.alloc(3);
    out[0] = 0xfc;
    out.writeUInt16LE(value, 1);
    return out;
  }
  if (value <= 0xffffff) {
    const out = Buffer.alloc(4);
    out[0] = 0xfd;
    out.writeUIntLE(value, 1, 3);
    return out;
  }
  const out = Buffer.alloc(9);
  out[0] = 0xfe;
  out.writeBigUInt64LE(BigInt(value), 1);
  return out;
}

const cString = (text: string) => Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from([0])]);

/** The server's greeting (HandshakeV10). */
export interface Greeting {
  serverVersion: string;
  connectionId: number;
  capabilities: number;
  charset: number;
  status: number;
  /** The scramble the authentication plugin hashes the password with. */
  authData: Buffer;
  authPlugin: string;
}

export function parseGreeting(payload: Buffer): Greeting {
  const reader = new PayloadReader(payload);
  const version = reader.u8();
  if (version !== 10) throw new MysqlWireError(`handshake protocol ${version} is not 10`);
  const serverVersion = reader.cString();
  const connectionId = reader.u32();
  const data1 = reader.bytes(8);
  reader.u8();
  let capabilities = reader.u16();
  const charset = reader.u8();
  const status = reader.u16();
  capabilities |= reader.u16() << 16;
  const authLength = reader.u8();
  reader.bytes(10);
  let data2: Buffer = Buffer.alloc(0);
  if (capabilities & Capability.secureConnection) {
    data2 = reader.bytes(Math.max(13, authLength - 8));
    // The second part ends in a NUL that is not part of the scramble.
    if (data2[data2.length - 1] === 0) data2 = data2.subarray(0, data2.length - 1);
  }
  const authPlugin = capabilities & Capability.pluginAuth ? reader.cString() : '';
  return {
    serverVersion,
    connectionId,
    capabilities: capabilities >>> 0,
    charset,
    status,
    authData: Buffer.concat([data1, data2]),
    authPlugin,
  };
}

export function greeting(greet: Greeting): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32LE(greet.connectionId, 0);
  const flags = Buffer.alloc(2 + 1 + 2 + 2 + 1 + 10);
  flags.writeUInt16LE(greet.capabilities & 0xffff, 0);
  flags[2] = greet.charset;
  flags.writeUInt16LE(greet.status, 3);
  flags.writeUInt16LE(greet.capabilities >>> 16, 5);
  flags[7] = greet.authData.length + 1;
  return Buffer.concat([
    Buffer.from([10]),
    cString(greet.serverVersion),
    head,
    greet.authData.subarray(0, 8),
    Buffer.from([0]),
    flags,
    greet.authData.subarray(8),
    Buffer.from([0]),
    cString(greet.authPlugin),
  ]);
}

/** The client's HandshakeResponse41 (or, with only its first 32 bytes, an SSLRequest). */
export interface HandshakeResponse {
  capabilities: number;
  maxPacket: number;
  charset: number;
  user: string;
  authResponse: Buffer;
  database: string;
  authPlugin: string;
  /** Connection attributes, raw (length-encoded key/value pairs) as the client sent them. */
  attributes: Buffer;
}

export function parseHandshakeResponse(payload: Buffer): HandshakeResponse {
  const reader = new PayloadReader(payload);
  const capabilities = reader.u32();
  if (!(capabilities & Capability.protocol41)) {
    throw new MysqlWireError('the client does not speak protocol 4.1');
  }
  const maxPacket = reader.u32();
  const charset = reader.u8();
  reader.bytes(23);
  const response: HandshakeResponse = {
    capabilities: capabilities >>> 0,
    maxPacket,
    charset,
    user: '',
    authResponse: Buffer.alloc(0),
    database: '',
    authPlugin: '',
    attributes: Buffer.alloc(0),
  };
  // A 32-byte response is an SSLRequest: nothing follows until TLS is up.
  if (reader.left === 0) return response;
  response.user = reader.cString();
  if (capabilities & Capability.pluginAuthLenencData) {
    response.authResponse = reader.lenencBytes() ?? Buffer.alloc(0);
  } else if (capabilities & Capability.secureConnection) {
    response.authResponse = reader.bytes(reader.u8());
  } else {
    response.authResponse = Buffer.from(reader.cString(), 'binary');
  }
  if (capabilities & Capability.connectWithDb && reader.left > 0)
    response.database = reader.cString();
  if (capabilities & Capability.pluginAuth && reader.left > 0)
    response.authPlugin = reader.cString();
  if (capabilities & Capability.connectAttrs && reader.left > 0) {
    const length = reader.lenenc() ?? 0;
    response.attributes = reader.bytes(length);
  }
  return response;
}

/** The fixed head of a handshake response: flags, max packet, charset, 23 reserved bytes. */
function responseHead(capabilities: number, maxPacket: number, charset: number): Buffer {
  const head = Buffer.alloc(32);
  head.writeUInt32LE(capabilities >>> 0, 0);
  head.writeUInt32LE(maxPacket >>> 0, 4);
  head[8] = charset;
  return head;
}

export function sslRequest(capabilities: number, maxPacket: number, charset: number): Buffer {
  return responseHead(capabilities | Capability.ssl, maxPacket, charset);
}

export function handshakeResponse(response: HandshakeResponse): Buffer {
  const caps = response.capabilities;
  const parts = [responseHead(caps, response.maxPacket, response.charset), cString(response.user)];
  if (caps & Capability.pluginAuthLenencData) {
    parts.push(lenencInt(response.authResponse.length), response.authResponse);
  } else {
    parts.push(Buffer.from([response.authResponse.length]), response.authResponse);
  }
  if (caps & Capability.connectWithDb) parts.push(cString(response.database));
  if (caps & Capability.pluginAuth) parts.push(cString(response.authPlugin));
  if (caps & Capability.connectAttrs) {
    parts.push(lenencInt(response.attributes.length), response.attributes);
  }
  return Buffer.concat(parts);
}

/** An OK packet with nothing to say: no rows, no id, autocommit on. */
export function okPayload(status = 0x0002): Buffer {
  const out = Buffer.from([0x00, 0x00, 0x00, 0, 0, 0, 0]);
  out.writeUInt16LE(status, 3);
  return out;
}

export interface MysqlError {
  code: number;
  sqlState: string;
  message: string;
}

/** Error numbers the proxy answers with, as the server would for the same refusal. */
export const ErrorCode = {
  accessDenied: 1045, // ER_ACCESS_DENIED_ERROR, 28000
  dbAccessDenied: 1044, // ER_DBACCESS_DENIED_ERROR, 42000
  unknownCommand: 1047, // ER_UNKNOWN_COM_ERROR, 08S01
  connectionKilled: 1927, // ER_CONNECTION_KILLED, 70100
  handshakeError: 1043, // ER_HANDSHAKE_ERROR, 08S01
  badHost: 2003, // the client library's "can't connect", HY000
  badDb: 1049, // ER_BAD_DB_ERROR, 42000
  serverShutdown: 1053, // ER_SERVER_SHUTDOWN, 08S01
} as const;

export function errPayload(error: MysqlError): Buffer {
  const head = Buffer.alloc(3);
  head[0] = 0xff;
  head.writeUInt16LE(error.code, 1);
  return Buffer.concat([
    head,
    Buffer.from(`#${error.sqlState}`, 'ascii'),
    Buffer.from(error.message, 'utf8'),
  ]);
}

export function parseErr(payload: Buffer): MysqlError {
  const reader = new PayloadReader(payload);
  reader.u8();
  const code = reader.u16();
  let sqlState = 'HY000';
  if (payload[reader.at] === 0x23) {
    reader.u8();
    sqlState = reader.bytes(5).toString('ascii');
  }
  return { code, sqlState, message: reader.rest().toString('utf8') };
}
