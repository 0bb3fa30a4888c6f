import { randomBytes } from 'node:crypto';

/**
 * What the client tells the server about itself during the connection (MS-RDPBCGR 2.2.1.3, the
 * GCC client data blocks) and after it (2.2.1.11, the Client Info PDU), little-endian throughout.
 */

const utf16 = (text: string) => Buffer.from(text, 'utf16le');

/** A fixed-size, zero-padded UTF-16 field (clientName: 32 bytes). */
function fixedUtf16(text: string, bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  utf16(text.slice(0, bytes / 2 - 1)).copy(out);
  return out;
}

function block(type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16LE(type, 0);
  header.writeUInt16LE(body.length + 4, 2);
  return Buffer.concat([header, body]);
}

/** CS_CORE, CS_SECURITY, CS_NET (the static virtual channels named) and CS_CLUSTER. */
export function clientDataBlocks(
  width: number,
  height: number,
  selectedProtocol: number,
  channels: { name: string; options: number }[] = [],
): Buffer {
  const core = Buffer.alloc(212);
  let at = 0;
  const u16 = (value: number) => (at = core.writeUInt16LE(value, at));
  const u32 = (value: number) => (at = core.writeUInt32LE(value, at));
  u32(0x00080004); // RDP 5.0 and later
  u16(width);
  u16(height);
  u16(0xca01); // colorDepth: 8 bpp, superseded by highColorDepth
  u16(0xaa03); // SASSequence
  u32(0x409); // keyboard layout: US
  u32(2600); // client build
  at += fixedUtf16('postern', 32).copy(core, at);
  u32(4); // IBM enhanced keyboard
  u32(0);
  u32(12);
  at += 64; // imeFileName
  u16(0xca01); // postBeta2ColorDepth
  u16(1); // clientProductId
  u32(0); // serialNumber
  u16(24); // highColorDepth
  u16(0x0001 | 0x0002 | 0x0008); // 24, 16 and 32 bpp
  u16(0x0001 | 0x0002); // SUPPORT_ERRINFO_PDU, WANT_32BPP_SESSION
  at += 64; // clientDigProductId
  at += 2; // connectionType, pad1octet
  u32(selectedProtocol);
  const security = Buffer.alloc(8); // no RDP encryption: TLS carries it
  const net = Buffer.alloc(4 + channels.length * 12);
  net.writeUInt32LE(channels.length, 0);
  channels.forEach((channel, i) => {
    net.write(channel.name.slice(0, 7), 4 + i * 12, 'latin1');
    net.writeUInt32LE(channel.options >>> 0, 4 + i * 12 + 8);
  });
  const cluster = Buffer.alloc(8);
  cluster.writeUInt32LE(0x0d, 0); // REDIRECTION_SUPPORTED, version 4
  return Buffer.concat([
    block(0xc001, core),
    block(0xc002, security),
    block(0xc003, net),
    block(0xc004, cluster),
  ]);
}

/** INFO_* flags of TS_INFO_PACKET. */
const infoFlags =
  0x0001 | // INFO_MOUSE
  0x0002 | // INFO_DISABLECTRLALTDEL
  0x0008 | // INFO_AUTOLOGON: the credentials below sign in, no logon screen
  0x0010 | // INFO_UNICODE
  0x0020 | // INFO_MAXIMIZESHELL
  0x0100; // INFO_ENABLEWINDOWSKEY

/**
 * The Client Info PDU (2.2.1.11) behind a basic security header with SEC_INFO_PKT: the
 * credentials the proxy signs in with (they never reach the browser).
 */
export function clientInfoPdu(login: { user: string; password: string; domain?: string }) {
  const field = (text: string) => Buffer.concat([utf16(text), Buffer.alloc(2)]);
  const domain = field(login.domain ?? '');
  const user = field(login.user);
  const password = field(login.password);
  const shell = field('');
  const dir = field('');
  const head = Buffer.alloc(4 + 4 + 4 + 10);
  head.writeUInt16LE(0x0040, 0); // SEC_INFO_PKT
  head.writeUInt32LE(0, 4); // codePage
  head.writeUInt32LE(infoFlags, 8);
  [domain, user, password, shell, dir].forEach((value, index) =>
    head.writeUInt16LE(value.length - 2, 12 + index * 2),
  );
  // TS_EXTENDED_INFO_PACKET (2.2.1.11.1.1.1): address and directory, a zero time zone, and
  // every visual nicety off (performanceFlags), which the proxy would only re-encode.
  const address = field('127.0.0.1');
  const clientDir = field('C:\\Windows\\System32\\mstscax.dll');
  const extended = Buffer.alloc(2 + 2 + address.length + 2 + clientDir.length + 172 + 4 + 4 + 2);
  let at = extended.writeUInt16LE(0x0002, 0); // AF_INET
  at = extended.writeUInt16LE(address.length, at);
  at += address.copy(extended, at);
  at = extended.writeUInt16LE(clientDir.length, at);
  at += clientDir.copy(extended, at);
  at += 172; // clientTimeZone
  at = extended.writeUInt32LE(0, at); // clientSessionId
  at = extended.writeUInt32LE(0x01 | 0x02 | 0x04 | 0x08 | 0x20, at); // no wallpaper, drag, animations, themes, cursor shadow
  extended.writeUInt16LE(0, at); // cbAutoReconnectCookie
  return Buffer.concat([head, domain, user, password, shell, dir, extended]);
}

/**
 * A Client New License Request (MS-RDPELE 2.2.2.2) behind SEC_LICENSE_PKT. Postern holds no
 * client access licence: this is what servers without a licensing service (xrdp, a host in its
 * grace period) expect before they say STATUS_VALID_CLIENT. The premaster secret is random
 * bytes, not encrypted to the server's licensing key, which such servers never read.
 */
export function newLicenseRequest(user: string): Buffer {
  const blob = (type: number, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt16LE(type, 0);
    head.writeUInt16LE(data.length, 2);
    return Buffer.concat([head, data]);
  };
  const body = Buffer.concat([
    Buffer.from([1, 0, 0, 0]), // KEY_EXCHANGE_ALG_RSA
    Buffer.from([0, 0, 0, 0]), // platformId
    randomBytes(32), // ClientRandom
    blob(0x0002, randomBytes(72)), // BB_RANDOM_BLOB: EncryptedPreMasterSecret
    blob(0x000f, Buffer.from(`${user}\0`, 'latin1')), // BB_CLIENT_USER_NAME_BLOB
    blob(0x0010, Buffer.from('postern\0', 'latin1')), // BB_CLIENT_MACHINE_NAME_BLOB
  ]);
  const head = Buffer.alloc(8);
  head.writeUInt16LE(0x0080, 0); // SEC_LICENSE_PKT
  head.writeUInt8(0x13, 4); // NEW_LICENSE_REQUEST
  head.writeUInt8(0x83, 5); // PREAMBLE_VERSION_3_0, EXTENDED_ERROR_MSG_SUPPORTED
  head.writeUInt16LE(body.length + 4, 6);
  return Buffer.concat([head, body]);
}
