import { randomBytes } from 'node:crypto';
import { hmacMd5, md4, rc4Once } from './ntlm-crypto.js';
import { RdpProtocolError } from './rdp-wire.js';

/**
 * NTLM's messages and NTLMv2 responses as a client builds them (MS-NLMP 2.2 and 3.3.2): only
 * NTLMv2 with extended session security and a 128-bit exchanged session key, which every
 * Windows since Vista offers; older forms (LM, NTLMv1, 40/56-bit keys) are refused rather than
 * weakened to.
 */

export const ntlmFlag = {
  unicode: 0x00000001,
  requestTarget: 0x00000004,
  sign: 0x00000010,
  seal: 0x00000020,
  ntlm: 0x00000200,
  alwaysSign: 0x00008000,
  extendedSessionSecurity: 0x00080000,
  targetInfo: 0x00800000,
  version: 0x02000000,
  bits128: 0x20000000,
  keyExchange: 0x40000000,
  bits56: 0x80000000,
} as const;

/** What the client asks for in NEGOTIATE (0xe2088235). */
const clientFlags =
  (ntlmFlag.unicode |
    ntlmFlag.requestTarget |
    ntlmFlag.sign |
    ntlmFlag.seal |
    ntlmFlag.ntlm |
    ntlmFlag.alwaysSign |
    ntlmFlag.extendedSessionSecurity |
    ntlmFlag.version |
    ntlmFlag.bits128 |
    ntlmFlag.keyExchange |
    ntlmFlag.bits56) >>>
  0;

/** What the client cannot do without: the sealing CredSSP needs, in its one strong form. */
const requiredFlags =
  ntlmFlag.unicode |
  ntlmFlag.sign |
  ntlmFlag.seal |
  ntlmFlag.extendedSessionSecurity |
  ntlmFlag.bits128;

const av = {
  eol: 0,
  flags: 6,
  timestamp: 7,
} as const;

/** MsvAvFlags bit 0x2: the AUTHENTICATE message carries a MIC. */
const avFlagMic = 0x00000002;

const signature = Buffer.from('NTLMSSP\0', 'latin1');
const utf16 = (text: string) => Buffer.from(text, 'utf16le');

/** VERSION (2.2.2.10): 10.0 build 20348, NTLM revision 15, informational only. */
function version(): Buffer {
  const v = Buffer.alloc(8);
  v.writeUInt8(10, 0);
  v.writeUInt16LE(20348, 2);
  v.writeUInt8(0x0f, 7);
  return v;
}

/** NEGOTIATE_MESSAGE (2.2.1.1) with no domain or workstation: the client names itself later. */
export function negotiateMessage(): Buffer {
  const message = Buffer.alloc(40);
  signature.copy(message);
  message.writeUInt32LE(1, 8);
  message.writeUInt32LE(clientFlags, 12);
  message.writeUInt32LE(40, 20); // empty domain and workstation fields point past the header
  message.writeUInt32LE(40, 28);
  version().copy(message, 32);
  return message;
}

export interface NtlmChallenge {
  flags: number;
  serverChallenge: Buffer;
  /** The AV pairs (2.2.2.1) the server sent, as they came: the NTLMv2 response covers them. */
  targetInfo: Buffer;
}

/** CHALLENGE_MESSAGE (2.2.1.2); throws RdpProtocolError on anything malformed. */
export function readChallengeMessage(message: Buffer): NtlmChallenge {
  if (message.length < 48 || !message.subarray(0, 8).equals(signature)) {
    throw new RdpProtocolError('the desktop sent no NTLM challenge');
  }
  if (message.readUInt32LE(8) !== 2) throw new RdpProtocolError('the NTLM message is no challenge');
  const flags = message.readUInt32LE(20);
  const length = message.readUInt16LE(40);
  const offset = message.readUInt32LE(44);
  if (offset + length > message.length) {
    throw new RdpProtocolError('the NTLM challenge has its target info out of bounds');
  }
  const targetInfo = Buffer.from(message.subarray(offset, offset + length));
  readAvPairs(targetInfo); // checked now, so a bad one fails here and not half-way through
  return { flags, serverChallenge: Buffer.from(message.subarray(24, 32)), targetInfo };
}

interface AvPair {
  id: number;
  value: Buffer;
}

/** The AV pairs up to MsvAvEOL (a list ending without one is accepted: EOL is implied). */
export function readAvPairs(info: Buffer): AvPair[] {
  const pairs: AvPair[] = [];
  for (let at = 0; at < info.length;) {
    if (at + 4 > info.length) throw new RdpProtocolError('the NTLM target info is cut short');
    const id = info.readUInt16LE(at);
    const length = info.readUInt16LE(at + 2);
    if (at + 4 + length > info.length) {
      throw new RdpProtocolError('the NTLM target info is cut short');
    }
    if (id === av.eol) break;
    pairs.push({ id, value: info.subarray(at + 4, at + 4 + length) });
    at += 4 + length;
  }
  return pairs;
}

function writeAvPairs(pairs: AvPair[]): Buffer {
  const parts = [...pairs, { id: av.eol, value: Buffer.alloc(0) }].map(({ id, value }) => {
    const head = Buffer.alloc(4);
    head.writeUInt16LE(id, 0);
    head.writeUInt16LE(value.length, 2);
    return Buffer.concat([head, value]);
  });
  return Buffer.concat(parts);
}

/** NTOWFv2 (3.3.2): HMAC_MD5 keyed with the password's MD4 over UPPER(user) + domain. */
export function ntowfv2(password: string, user: string, domain: string): Buffer {
  return hmacMd5(md4(utf16(password)), utf16(user.toUpperCase() + domain));
}

/** LMv2_RESPONSE (2.2.2.4): what a server without target info checks. */
export function lmv2Response(key: Buffer, serverChallenge: Buffer, clientChallenge: Buffer) {
  return Buffer.concat([hmacMd5(key, serverChallenge, clientChallenge), clientChallenge]);
}

/**
 * NTLMv2_RESPONSE (2.2.2.8) and the session base key (3.3.2): the proof covers the server's
 * challenge, the time, the client's challenge and the target info, so none can be replayed.
 */
export function ntlmv2Response(
  key: Buffer,
  serverChallenge: Buffer,
  clientChallenge: Buffer,
  time: Buffer,
  targetInfo: Buffer,
) {
  const versions = Buffer.from([1, 1, 0, 0, 0, 0, 0, 0]);
  const zero = Buffer.alloc(4);
  const temp = Buffer.concat([versions, time, clientChallenge, zero, targetInfo, zero]);
  const ntProofStr = hmacMd5(key, serverChallenge, temp);
  return {
    ntProofStr,
    response: Buffer.concat([ntProofStr, temp]),
    sessionBaseKey: hmacMd5(key, ntProofStr),
  };
}

/** Now as a FILETIME (100 ns ticks since 1601), little-endian. */
function fileTime(now: Date): Buffer {
  const time = Buffer.alloc(8);
  time.writeBigUInt64LE((BigInt(now.getTime()) + 11644473600000n) * 10000n);
  return time;
}

export interface NtlmCredentials {
  user: string;
  domain: string;
  password: string;
}

export interface AuthenticateOptions {
  negotiate: Buffer;
  /** The CHALLENGE message as it came (the MIC covers it). */
  challenge: Buffer;
  credentials: NtlmCredentials;
  /** Fixed values for tests; random (and the clock) otherwise. */
  clientChallenge?: Buffer;
  exportedSessionKey?: Buffer;
  now?: Date;
}

/**
 * AUTHENTICATE_MESSAGE (2.2.1.3, built as 3.1.5.1.2 says) and the session key the sealing is
 * keyed with. A MIC over the three messages is added when the server's target info has a
 * timestamp, which is when Windows expects one (and says so back in MsvAvFlags).
 */
export function authenticateMessage(options: AuthenticateOptions) {
  const challenge = readChallengeMessage(options.challenge);
  if ((challenge.flags & requiredFlags) !== requiredFlags) {
    throw new RdpProtocolError(
      'the desktop does not offer NTLMv2 with 128-bit extended session security',
    );
  }
  const flags = (challenge.flags & (clientFlags | ntlmFlag.targetInfo)) >>> 0;
  const { user, domain, password } = options.credentials;
  const key = ntowfv2(password, user, domain);
  const clientChallenge = options.clientChallenge ?? randomBytes(8);

  const pairs = readAvPairs(challenge.targetInfo);
  const timestamp = pairs.find((pair) => pair.id === av.timestamp)?.value;
  const withMic = timestamp !== undefined;
  let targetInfo = challenge.targetInfo;
  if (withMic) {
    const flagsPair = pairs.find((pair) => pair.id === av.flags);
    const value = Buffer.alloc(4);
    value.writeUInt32LE(((flagsPair ? flagsPair.value.readUInt32LE(0) : 0) | avFlagMic) >>> 0);
    targetInfo = writeAvPairs([
      ...pairs.filter((pair) => pair.id !== av.flags),
      { id: av.flags, value },
    ]);
  }
  const time = timestamp ?? fileTime(options.now ?? new Date());
  const nt = ntlmv2Response(key, challenge.serverChallenge, clientChallenge, time, targetInfo);
  // With a timestamp the LM response is 24 zero bytes (3.3.2): the NT one says it all.
  const lm = withMic
    ? Buffer.alloc(24)
    : lmv2Response(key, challenge.serverChallenge, clientChallenge);

  // NTLMv2's key exchange key is the session base key (3.4.5.1); with KEY_EXCH the client picks
  // the session key and sends it RC4-encrypted under that.
  let exportedSessionKey: Buffer = nt.sessionBaseKey;
  let encryptedKey: Buffer = Buffer.alloc(0);
  if (flags & ntlmFlag.keyExchange) {
    exportedSessionKey = options.exportedSessionKey ?? randomBytes(16);
    encryptedKey = rc4Once(nt.sessionBaseKey, exportedSessionKey);
  }

  const fields = [lm, nt.response, utf16(domain), utf16(user), Buffer.alloc(0), encryptedKey];
  const header = Buffer.alloc(88);
  signature.copy(header);
  header.writeUInt32LE(3, 8);
  let offset = header.length;
  fields.forEach((field, i) => {
    header.writeUInt16LE(field.length, 12 + i * 8);
    header.writeUInt16LE(field.length, 14 + i * 8);
    header.writeUInt32LE(offset, 16 + i * 8);
    offset += field.length;
  });
  header.writeUInt32LE(flags, 60);
  version().copy(header, 64);
  const message = Buffer.concat([header, ...fields]);
  if (withMic) {
    hmacMd5(exportedSessionKey, options.negotiate, options.challenge, message).copy(message, 72);
  }
  return { message, exportedSessionKey, flags };
}
