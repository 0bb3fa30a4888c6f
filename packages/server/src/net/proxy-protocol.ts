import { BlockList, isIP, type Socket } from 'node:net';
import { peekConnection, type Peeked } from './peek-connection.js';

/**
 * The PROXY protocol (HAProxy's, versions 1 and 2): a load balancer passing connections through
 * (TCP mode, TLS kept by the proxies) says, before the connection's own first byte, whom it
 * accepted it from. Without it every client shares the balancer's address: sign-in rate limits
 * count them together, the audit log names the balancer, and `pin_source_ip` refuses everyone.
 *
 * Read only from the addresses in `trusted_proxies`, and only when the connection starts with
 * it: neither header can be mistaken for what else comes first here (a TLS ClientHello, an HTTP
 * request line, an SSH identification), so a balancer may send it or not. From anyone else the
 * bytes stay what they are, and the connection fails as the garbage it then is.
 */

/** Version 2's fixed start; version 1's is the text `PROXY `. */
const v2Signature = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');
const v1Prefix = Buffer.from('PROXY ');
/** Version 1's longest line (`PROXY TCP6 ` and two full IPv6 addresses and ports, CRLF). */
const v1MaxBytes = 107;
/** Version 2's header before the addresses, and the most of addresses and TLVs we take. */
const v2FixedBytes = 16;
const v2MaxBodyBytes = 2048;
/** How long a trusted balancer gets to send its header: it sends it at once. */
const headerTimeoutMs = 5_000;

export interface ProxiedAddress {
  address: string;
  port: number;
  family: 'IPv4' | 'IPv6';
}

/** What the start of a connection says: more bytes needed, no header, a header, or garbage. */
export type HeaderReading =
  | { kind: 'incomplete' }
  | { kind: 'none' }
  | { kind: 'header'; length: number; source?: ProxiedAddress }
  | { kind: 'invalid'; reason: string };

/**
 * Reads a PROXY header at the start of `bytes`. `source` is absent for what names no client: a
 * version 2 LOCAL (the balancer's own health check) or `PROXY UNKNOWN`.
 */
export function readProxyHeader(bytes: Buffer): HeaderReading {
  if (startsWith(bytes, v2Signature)) return readV2(bytes);
  if (startsWith(bytes, v1Prefix)) return readV1(bytes);
  // Too short to tell: a prefix of either header waits for more.
  const short = bytes.length < v2Signature.length;
  if (short && (isPrefixOf(bytes, v2Signature) || isPrefixOf(bytes, v1Prefix))) {
    return { kind: 'incomplete' };
  }
  return { kind: 'none' };
}

function readV1(bytes: Buffer): HeaderReading {
  const end = bytes.indexOf('\r\n');
  if (end < 0) {
    return bytes.length < v1MaxBytes
      ? { kind: 'incomplete' }
      : { kind: 'invalid', reason: 'a PROXY line longer than 107 bytes' };
  }
  if (end + 2 > v1MaxBytes)
    return { kind: 'invalid', reason: 'a PROXY line longer than 107 bytes' };
  const fields = bytes.toString('latin1', 0, end).split(' ');
  const length = end + 2;
  if (fields[1] === 'UNKNOWN') return { kind: 'header', length };
  const [, protocol, source, , sourcePort] = fields;
  const family = protocol === 'TCP4' ? 4 : protocol === 'TCP6' ? 6 : 0;
  if (fields.length !== 6 || !family || isIP(source ?? '') !== family || !isPort(sourcePort)) {
    return {
      kind: 'invalid',
      reason: 'a PROXY line that is not TCP4/TCP6 with two addresses and ports',
    };
  }
  return {
    kind: 'header',
    length,
    source: { address: source!, port: Number(sourcePort), family: family === 4 ? 'IPv4' : 'IPv6' },
  };
}

function readV2(bytes: Buffer): HeaderReading {
  if (bytes.length < v2FixedBytes) return { kind: 'incomplete' };
  const versionCommand = bytes[12]!;
  if (versionCommand >> 4 !== 2)
    return { kind: 'invalid', reason: 'a PROXY header of version other than 2' };
  const command = versionCommand & 0x0f;
  const bodyLength = bytes.readUInt16BE(14);
  if (bodyLength > v2MaxBodyBytes) return { kind: 'invalid', reason: 'a PROXY header too long' };
  const length = v2FixedBytes + bodyLength;
  if (bytes.length < length) return { kind: 'incomplete' };
  if (command === 0) return { kind: 'header', length }; // LOCAL: the balancer's own connection
  if (command !== 1) return { kind: 'invalid', reason: 'a PROXY header with an unknown command' };
  const body = bytes.subarray(v2FixedBytes, length);
  const familyTransport = bytes[13]!;
  const transport = familyTransport & 0x0f;
  const family = familyTransport >> 4;
  // UNSPEC or UNIX sockets, or datagrams: nothing that names a TCP client.
  if (transport !== 1 || (family !== 1 && family !== 2)) return { kind: 'header', length };
  const addressBytes = family === 1 ? 4 : 16;
  if (body.length < addressBytes * 2 + 4) {
    return { kind: 'invalid', reason: 'a PROXY header shorter than its addresses' };
  }
  const source = body.subarray(0, addressBytes);
  const port = body.readUInt16BE(addressBytes * 2);
  return {
    kind: 'header',
    length,
    source:
      family === 1
        ? { address: [...source].join('.'), port, family: 'IPv4' }
        : { address: ipv6Text(source), port, family: 'IPv6' },
  };
}

/**
 * Takes a new connection: from a trusted balancer, reads a PROXY header if it starts with one
 * and makes the socket report the client it names (`remoteAddress`, `remotePort`,
 * `remoteFamily`); then hands it on with every byte after the header unread, paused: its reader
 * resumes it (or a TLS server takes it as it is). A trusted balancer's broken header ends the
 * connection.
 */
export function acceptProxied(
  socket: Socket,
  trusted: TrustedProxies,
  next: (socket: Socket) => void,
): void {
  if (!trusted.includes(socket.remoteAddress)) return next(socket);
  const decide = (bytes: Buffer): Peeked<HeaderReading> | undefined => {
    const reading = readProxyHeader(bytes);
    if (reading.kind === 'incomplete') return undefined;
    return { decision: reading, consumed: reading.kind === 'header' ? reading.length : 0 };
  };
  peekConnection(socket, headerTimeoutMs, decide, (reading) => {
    if (reading.kind === 'invalid') return void socket.destroy();
    if (reading.kind === 'header' && reading.source) reportAs(socket, reading.source);
    next(socket);
  });
}

/** What the connection says it came from, for every reader of the socket's peer address. */
export function reportAs(socket: Socket, source: ProxiedAddress): void {
  for (const [name, value] of [
    ['remoteAddress', source.address],
    ['remotePort', source.port],
    ['remoteFamily', source.family],
  ] as const) {
    Object.defineProperty(socket, name, { value, configurable: true, enumerable: true });
  }
  proxiedSources.set(socket, source);
}

/**
 * For a server-side TLS socket (its server's 'secureConnection'): a TLS socket asks the kernel
 * for its peer, not the socket it runs on, so it is told what that socket's PROXY header said.
 * Node keeps that socket as `_parent` (not public API, but unchanged since TLS sockets wrap
 * sockets); the PROXY protocol test through HAProxy fails if a Node upgrade moves it.
 */
export function reportTlsPeer(tlsSocket: Socket): void {
  const parent = (tlsSocket as unknown as { _parent?: object })._parent;
  const source = parent && proxiedSources.get(parent);
  if (source) reportAs(tlsSocket, source);
}

const proxiedSources = new WeakMap<object, ProxiedAddress>();

/** `trusted_proxies` as a matcher of peer addresses (IPv4-mapped IPv6 counts as IPv4). */
export class TrustedProxies {
  readonly #list = new BlockList();
  readonly #empty: boolean;

  constructor(ranges: readonly string[]) {
    this.#empty = ranges.length === 0;
    for (const range of ranges) {
      const [address = '', prefix] = range.split('/');
      const family = isIP(address) === 4 ? 'ipv4' : 'ipv6';
      const bits = prefix === undefined ? (family === 'ipv4' ? 32 : 128) : Number(prefix);
      this.#list.addSubnet(address, bits, family);
    }
  }

  includes(address: string | undefined): boolean {
    if (this.#empty || !address) return false;
    const plain =
      address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
    return this.#list.check(plain, isIP(plain) === 4 ? 'ipv4' : 'ipv6');
  }
}

function startsWith(bytes: Buffer, prefix: Buffer): boolean {
  return bytes.length >= prefix.length && bytes.subarray(0, prefix.length).equals(prefix);
}

function isPrefixOf(bytes: Buffer, whole: Buffer): boolean {
  return bytes.length > 0 && whole.subarray(0, bytes.length).equals(bytes);
}

function isPort(text: string | undefined): boolean {
  return /^\d{1,5}$/.test(text ?? '') && Number(text) <= 65_535;
}

function ipv6Text(bytes: Buffer): string {
  // An IPv4 client on a dual-stack balancer: written as Node writes such peers.
  if (bytes.subarray(0, 10).every((byte) => byte === 0) && bytes.readUInt16BE(10) === 0xffff) {
    return `::ffff:${[...bytes.subarray(12)].join('.')}`;
  }
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  // The compressed form Node reports for sockets (the longest run of zero groups as ::).
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.length && j - i > 1) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.at < 0) return groups.join(':');
  const head = groups.slice(0, best.at).join(':');
  const tail = groups.slice(best.at + best.length).join(':');
  return `${head}::${tail}`;
}
