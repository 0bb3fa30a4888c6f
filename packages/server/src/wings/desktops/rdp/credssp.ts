import type { ByteInput } from '../rfb/byte-input.js';
import { RdpProtocolError } from './rdp-wire.js';

/**
 * CredSSP's messages (MS-CSSP 2.2.1) in DER: the TSRequest each side sends, and the
 * TSCredentials the client finally hands over. Only the definite-length DER the protocol uses
 * is read; anything else is a malformed message.
 */

export interface TsRequest {
  version: number;
  /** NTLM messages (negoTokens: a SEQUENCE OF NegoData, each one token). */
  negoTokens?: Buffer[];
  authInfo?: Buffer;
  pubKeyAuth?: Buffer;
  /** An NTSTATUS the server failed with (version 3 and later), as an unsigned number. */
  errorCode?: number;
  clientNonce?: Buffer;
}

/** The most a TSRequest may take: NTLM tokens and keys are small, certificates are not in it. */
const maxRequestBytes = 64 * 1024;

const tag = {
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  sequence: 0x30,
  context: (n: number) => 0xa0 + n,
} as const;

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const der = (type: number, ...contents: Buffer[]) => {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([type]), derLength(body.length), body]);
};

/** A non-negative INTEGER in its fewest bytes (a leading zero when the top bit is set). */
function derInteger(value: number): Buffer {
  const bytes: number[] = [];
  for (let rest = value; bytes.length === 0 || rest > 0; rest = Math.floor(rest / 256)) {
    bytes.unshift(rest & 0xff);
  }
  if (bytes[0]! & 0x80) bytes.unshift(0);
  return der(tag.integer, Buffer.from(bytes));
}

const explicit = (n: number, inner: Buffer) => der(tag.context(n), inner);
const octets = (n: number, value: Buffer) => explicit(n, der(tag.octetString, value));

export function encodeTsRequest(request: TsRequest): Buffer {
  const fields = [explicit(0, derInteger(request.version))];
  if (request.negoTokens?.length) {
    const tokens = request.negoTokens.map((token) => der(tag.sequence, octets(0, token)));
    fields.push(explicit(1, der(tag.sequence, ...tokens)));
  }
  if (request.authInfo) fields.push(octets(2, request.authInfo));
  if (request.pubKeyAuth) fields.push(octets(3, request.pubKeyAuth));
  if (request.errorCode !== undefined) fields.push(explicit(4, derInteger(request.errorCode)));
  if (request.clientNonce) fields.push(octets(5, request.clientNonce));
  return der(tag.sequence, ...fields);
}

/** TSCredentials (2.2.1.2) of credType 1: TSPasswordCreds, its strings UTF-16LE. */
export function encodeTsCredentials(login: { domain: string; user: string; password: string }) {
  const utf16 = (text: string) => Buffer.from(text, 'utf16le');
  const passwordCreds = der(
    tag.sequence,
    octets(0, utf16(login.domain)),
    octets(1, utf16(login.user)),
    octets(2, utf16(login.password)),
  );
  return der(tag.sequence, explicit(0, derInteger(1)), octets(1, passwordCreds));
}

interface Element {
  type: number;
  contents: Buffer;
  /** Where the element after it starts. */
  end: number;
}

const malformed = (what: string) => new RdpProtocolError(`malformed CredSSP message: ${what}`);

/** The DER element at `at` of `data`. */
function readElement(data: Buffer, at: number): Element {
  if (at + 2 > data.length) throw malformed('an element is cut short');
  const type = data[at]!;
  let length = data[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 3 || start + count > data.length) {
      throw malformed('an element has a bad length');
    }
    length = data.subarray(start, start + count).reduce((sum, byte) => sum * 256 + byte, 0);
    start += count;
  }
  if (start + length > data.length) throw malformed('an element is longer than its container');
  return { type, contents: data.subarray(start, start + length), end: start + length };
}

function readChildren(parent: Buffer): Element[] {
  const children: Element[] = [];
  for (let at = 0; at < parent.length; at = children[children.length - 1]!.end) {
    children.push(readElement(parent, at));
  }
  return children;
}

function contentsOf(element: Element | undefined, type: number, what: string): Buffer {
  if (!element || element.type !== type) throw malformed(`${what} is missing or mistyped`);
  return element.contents;
}

/** An INTEGER as unsigned, so an NTSTATUS such as 0xC000006D reads the same either way. */
function readInteger(contents: Buffer, what: string): number {
  let bytes = contents;
  while (bytes.length > 1 && bytes[0] === 0) bytes = bytes.subarray(1);
  if (bytes.length === 0 || bytes.length > 4) throw malformed(`${what} is not a small integer`);
  return bytes.reduce((sum, byte) => sum * 256 + byte, 0);
}

export function decodeTsRequest(data: Buffer): TsRequest {
  const outer = readElement(data, 0);
  const body = contentsOf(outer, tag.sequence, 'the TSRequest');
  const request: TsRequest = { version: -1 };
  for (const field of readChildren(body)) {
    const inner = () => readElement(field.contents, 0);
    switch (field.type) {
      case tag.context(0):
        request.version = readInteger(contentsOf(inner(), tag.integer, 'version'), 'version');
        break;
      case tag.context(1):
        request.negoTokens = readChildren(contentsOf(inner(), tag.sequence, 'negoTokens')).map(
          (item) => {
            const [token] = readChildren(contentsOf(item, tag.sequence, 'a NegoData'));
            const value = contentsOf(token, tag.context(0), 'a negoToken');
            return Buffer.from(contentsOf(readElement(value, 0), tag.octetString, 'a negoToken'));
          },
        );
        break;
      case tag.context(2):
        request.authInfo = Buffer.from(contentsOf(inner(), tag.octetString, 'authInfo'));
        break;
      case tag.context(3):
        request.pubKeyAuth = Buffer.from(contentsOf(inner(), tag.octetString, 'pubKeyAuth'));
        break;
      case tag.context(4):
        request.errorCode = readInteger(contentsOf(inner(), tag.integer, 'errorCode'), 'errorCode');
        break;
      case tag.context(5):
        request.clientNonce = Buffer.from(contentsOf(inner(), tag.octetString, 'clientNonce'));
        break;
      default: // fields of later versions are not ours to read
    }
  }
  if (request.version < 0) throw malformed('the TSRequest has no version');
  return request;
}

/** Reads one TSRequest off the TLS stream (its DER header says how long it is). */
export async function readTsRequest(input: ByteInput): Promise<TsRequest> {
  const head = await input.read(2);
  if (head[0] !== tag.sequence) throw malformed('the TSRequest is not a SEQUENCE');
  let lengthBytes: Buffer = Buffer.alloc(0);
  let length = head[1]!;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 3) throw malformed('the TSRequest has a bad length');
    lengthBytes = await input.read(count);
    length = lengthBytes.reduce((sum, byte) => sum * 256 + byte, 0);
  }
  if (length > maxRequestBytes) throw malformed(`a TSRequest of ${length} bytes`);
  const body = await input.read(length);
  return decodeTsRequest(Buffer.concat([head, lengthBytes, body]));
}

/**
 * The subjectPublicKey of a DER SubjectPublicKeyInfo (RFC 5280): the BIT STRING's bytes after
 * its unused-bits count, which is what CredSSP binds the TLS connection to (MS-CSSP 3.1.5).
 */
export function subjectPublicKey(spki: Buffer): Buffer {
  const [, bits] = readChildren(contentsOf(readElement(spki, 0), tag.sequence, 'the public key'));
  const contents = contentsOf(bits, tag.bitString, 'the public key bits');
  return Buffer.from(contents.subarray(1));
}
