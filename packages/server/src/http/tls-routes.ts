import type { Socket } from 'node:net';
import { peekConnection, type Peeked } from '../net/peek-connection.js';

/**
 * Connections to the web port that ask, in their TLS ClientHello, for a server name (SNI) that a
 * wing claims: the Kubernetes listener's, which asks kubectl for a client certificate that the
 * console's listener must never ask browsers for. Such a connection goes to the wing's own TLS
 * server before any TLS is spoken; every other one goes on to the console's.
 */
export interface TlsHandler {
  claims(servername: string): boolean;
  /** Takes the connection; its ClientHello is still unread on it. */
  connection(socket: Socket): void;
}

export class TlsRoutes {
  private readonly handlers: TlsHandler[] = [];

  add(handler: TlsHandler): void {
    this.handlers.push(handler);
  }

  get empty(): boolean {
    return this.handlers.length === 0;
  }

  match(servername: string): TlsHandler | undefined {
    const name = servername.toLowerCase();
    return this.handlers.find((handler) => handler.claims(name));
  }
}

/** A ClientHello fits one TLS record: at most 2^14 bytes after the 5-byte record header. */
const maxHelloBytes = 5 + 16_384;

/**
 * How long a connection may take to send its ClientHello: the TLS handshake's own deadline
 * (slowClientLimits in app.ts) only starts once the connection is handed on, so a silent one
 * must be cut here.
 */
const helloTimeoutMs = 10_000;

/**
 * Reads the connection's first TLS record, puts it back, and hands the connection to the handler
 * claiming its server name, or to `fallback`. What is not a ClientHello with a server name goes
 * to `fallback` too, which answers it as it would have.
 */
export function routeTlsConnection(
  socket: Socket,
  routes: TlsRoutes,
  fallback: (socket: Socket) => void,
): void {
  if (routes.empty) return fallback(socket);
  const decide = (bytes: Buffer): Peeked<TlsHandler | undefined> | undefined => {
    const name = serverNameOf(bytes);
    if (name === 'incomplete' && bytes.length < maxHelloBytes) return undefined;
    const named = typeof name === 'string' && name !== 'incomplete';
    return { decision: named ? routes.match(name) : undefined };
  };
  peekConnection(socket, helloTimeoutMs, decide, (handler) => {
    if (handler) handler.connection(socket);
    else fallback(socket);
  });
}

/**
 * The server name a ClientHello asks for (RFC 8446 §4.1.2, RFC 6066 §3); undefined when the
 * bytes are not a ClientHello or name none; 'incomplete' until the first record is all there.
 */
export function serverNameOf(bytes: Buffer): string | undefined | 'incomplete' {
  if (bytes.length < 5) return 'incomplete';
  // A handshake record (22) of TLS 1.x.
  if (bytes[0] !== 22 || bytes[1] !== 3) return undefined;
  const recordEnd = 5 + bytes.readUInt16BE(3);
  if (bytes.length < recordEnd) return 'incomplete';
  const hello = bytes.subarray(5, recordEnd);
  // ClientHello (1), its 3-byte length, version (2), random (32).
  if (hello[0] !== 1 || hello.length < 38) return undefined;
  let at = 38;
  const skip = (lengthBytes: 1 | 2) => {
    if (at + lengthBytes > hello.length) return false;
    at += lengthBytes + (lengthBytes === 1 ? hello[at]! : hello.readUInt16BE(at));
    return at <= hello.length;
  };
  // Session id, cipher suites, compression methods.
  if (!skip(1) || !skip(2) || !skip(1)) return undefined;
  if (at + 2 > hello.length) return undefined;
  const extensionsEnd = Math.min(hello.length, at + 2 + hello.readUInt16BE(at));
  at += 2;
  while (at + 4 <= extensionsEnd) {
    const type = hello.readUInt16BE(at);
    const length = hello.readUInt16BE(at + 2);
    const body = hello.subarray(at + 4, at + 4 + length);
    at += 4 + length;
    if (type !== 0) continue;
    // server_name: a list (2-byte length) of (type 1 byte, name 2-byte length + bytes).
    let entry = 2;
    while (entry + 3 <= body.length) {
      const nameType = body[entry]!;
      const nameLength = body.readUInt16BE(entry + 1);
      const name = body.subarray(entry + 3, entry + 3 + nameLength);
      if (nameType === 0 && name.length === nameLength) return name.toString('latin1');
      entry += 3 + nameLength;
    }
    return undefined;
  }
  return undefined;
}
