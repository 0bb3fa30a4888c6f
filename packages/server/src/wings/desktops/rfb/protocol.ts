import { RfbProtocolError } from './rfb-errors.js';

/**
 * RFB's numbers (RFC 6143 and, for SetDesktopSize, Fence and ContinuousUpdates and their
 * pseudo-encodings, the community's rfbproto).
 */

export const securityType = { invalid: 0, none: 1, vncAuthentication: 2 } as const;

/** Names of the security types servers commonly offer, for error messages. */
const securityTypeNames: Record<number, string> = {
  1: 'None',
  2: 'VNC Authentication',
  5: 'RA2',
  6: 'RA2ne',
  16: 'Tight',
  18: 'TLS',
  19: 'VeNCrypt',
  22: 'XVP',
  30: 'Apple Remote Desktop',
  113: 'MSLogonII',
};
export const securityTypeName = (type: number) =>
  securityTypeNames[type] ? `${securityTypeNames[type]} (${type})` : `type ${type}`;

export const clientMessageType = {
  setPixelFormat: 0,
  setEncodings: 2,
  framebufferUpdateRequest: 3,
  keyEvent: 4,
  pointerEvent: 5,
  clientCutText: 6,
  enableContinuousUpdates: 150,
  fence: 248,
  setDesktopSize: 251,
} as const;

export const serverMessageType = {
  framebufferUpdate: 0,
  setColourMapEntries: 1,
  bell: 2,
  serverCutText: 3,
  endOfContinuousUpdates: 150,
  fence: 248,
} as const;

export const encoding = {
  raw: 0,
  copyRect: 1,
  tight: 7,
  zrle: 16,
  cursor: -239,
  desktopSize: -223,
  lastRect: -224,
  extendedDesktopSize: -308,
  fence: -312,
  continuousUpdates: -313,
  /** Tight's JPEG quality, levels 0 to 9: -32 to -23 (rfbproto §7.8.6). */
  qualityLevel0: -32,
  /** Tight's zlib level, 0 to 9: -256 to -247 (rfbproto §7.8.7). */
  compressLevel0: -256,
} as const;

/** The protocol versions this code speaks, as [major, minor]. */
export type RfbVersion = '3.3' | '3.7' | '3.8';

export const versionBytes = (version: RfbVersion) =>
  Buffer.from(`RFB 00${version.replace('.', '.00')}\n`, 'latin1');

/**
 * Reads a ProtocolVersion message (`RFB 003.008\n`) and says which version both ends then speak:
 * RFC 6143 §7.1.1 asks that anything other than 3.7 and 3.8 be treated as 3.3, and a server
 * newer than 3.8 accepts 3.8. Undefined when the 12 bytes are not RFB at all.
 */
export function parseVersion(bytes: Buffer): RfbVersion | undefined {
  const match = /^RFB (\d{3})\.(\d{3})\n$/.exec(bytes.toString('latin1'));
  if (!match) return undefined;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  if (major < 3) return undefined;
  if (major > 3 || minor >= 8) return '3.8';
  return minor === 7 ? '3.7' : '3.3';
}

/** What a peer sent where RFB text was expected, printable, for messages shown to people. */
export function printable(bytes: Buffer): string {
  return JSON.stringify(bytes.toString('latin1').replace(/[^\x20-\x7e]/g, '.'));
}

/** Reads a u32 length and checks it against `limit` before anything is buffered. */
export function checkedLength(length: number, limit: number, what: string): number {
  if (length > limit) {
    throw new RfbProtocolError(`${what} of ${length} bytes, over the limit of ${limit}`);
  }
  return length;
}

/**
 * How much of one message the proxy holds, or accepts, at most. Every message whose length
 * comes from the peer is checked against these before its bytes are read.
 */
export const rfbLimits = {
  /**
   * Clipboard text, either way. A longer text is dropped as it streams past, never held (as
   * TigerVNC does with its own MaxCutText), and the session goes on.
   */
  cutTextBytes: 1024 * 1024,
  /** Encodings in one SetEncodings (noVNC lists about 30). */
  encodings: 1024,
  /** A desktop's name in ServerInit. */
  nameBytes: 4096,
  /** ZRLE data of one rectangle. It streams through, so this only stops absurd lengths. */
  zrleBytes: 256 * 1024 * 1024,
  /**
   * Tight's deferred paints (JPEG and inflated rectangles) the proxy's copy holds before it
   * paints them whatever the recorder asks: bounds the memory of a copy nobody reads for a while.
   */
  deferredPaintBytes: 16 * 1024 * 1024,
  /** Width and height of a Cursor pseudo-rectangle, which streams through too. */
  cursorSide: 1024,
  /** A Fence's payload, either way (rfbproto §7.5.9 caps it at 64). */
  fencePayloadBytes: 64,
};
