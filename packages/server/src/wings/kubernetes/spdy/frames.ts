/**
 * SPDY/3 frames as bytes (SPDY Protocol Draft 3, section 2.2 and 2.6), the framing Kubernetes
 * speaks after `Upgrade: SPDY/3.1` (moby/spdystream). Header blocks stay compressed here: the
 * connection owns the zlib contexts (header-compression.ts), because their state spans frames.
 */

export const spdyVersion = 3;

export const controlType = {
  synStream: 1,
  synReply: 2,
  rstStream: 3,
  settings: 4,
  ping: 6,
  goAway: 7,
  headers: 8,
  windowUpdate: 9,
} as const;

export const flagFin = 0x01;
export const flagUnidirectional = 0x02;
export const flagClearSettings = 0x01;

/** RST_STREAM status codes (section 2.6.3). */
export const rstStatus = {
  protocolError: 1,
  invalidStream: 2,
  refusedStream: 3,
  unsupportedVersion: 4,
  cancel: 5,
  internalError: 6,
  flowControlError: 7,
  streamInUse: 8,
  streamAlreadyClosed: 9,
  frameTooLarge: 11,
} as const;

/** GOAWAY status codes (section 2.6.6). */
export const goAwayStatus = { ok: 0, protocolError: 1, internalError: 2 } as const;

/** SETTINGS ids this implementation reads or sends (section 2.6.4). */
export const settingId = { maxConcurrentStreams: 4, initialWindowSize: 7 } as const;

/** The largest length a frame header can state: 24 bits. */
export const maxFrameLength = 0xffffff;

export interface SettingEntry {
  flags: number;
  id: number;
  value: number;
}

export type Frame =
  | { type: 'data'; streamId: number; fin: boolean; data: Buffer }
  | {
      type: 'syn_stream';
      streamId: number;
      associatedToStreamId: number;
      priority: number;
      fin: boolean;
      unidirectional: boolean;
      headerBlock: Buffer;
    }
  | { type: 'syn_reply'; streamId: number; fin: boolean; headerBlock: Buffer }
  | { type: 'rst_stream'; streamId: number; status: number }
  | { type: 'settings'; clear: boolean; entries: SettingEntry[] }
  | { type: 'ping'; id: number }
  | { type: 'goaway'; lastGoodStreamId: number; status: number }
  | { type: 'headers'; streamId: number; fin: boolean; headerBlock: Buffer }
  | { type: 'window_update'; streamId: number; delta: number }
  /** A control frame of a type SPDY/3 does not define: the spec says to ignore it. */
  | { type: 'unknown'; controlType: number };

/** The peer broke the framing: the connection ends with GOAWAY PROTOCOL_ERROR, never a throw. */
export class SpdyProtocolError extends Error {}

const streamIdMask = 0x7fffffff;

export function encodeFrame(frame: Frame): Buffer {
  switch (frame.type) {
    case 'data': {
      const header = Buffer.alloc(8);
      header.writeUInt32BE(frame.streamId & streamIdMask, 0);
      header.writeUInt32BE(frameWord(frame.fin ? flagFin : 0, frame.data.length), 4);
      return Buffer.concat([header, frame.data]);
    }
    case 'syn_stream': {
      const body = Buffer.alloc(10);
      body.writeUInt32BE(frame.streamId & streamIdMask, 0);
      body.writeUInt32BE(frame.associatedToStreamId & streamIdMask, 4);
      body.writeUInt8((frame.priority & 0x7) << 5, 8);
      const flags = (frame.fin ? flagFin : 0) | (frame.unidirectional ? flagUnidirectional : 0);
      return control(controlType.synStream, flags, Buffer.concat([body, frame.headerBlock]));
    }
    case 'syn_reply':
    case 'headers': {
      const type = frame.type === 'syn_reply' ? controlType.synReply : controlType.headers;
      return control(
        type,
        frame.fin ? flagFin : 0,
        withStreamId(frame.streamId, frame.headerBlock),
      );
    }
    case 'rst_stream':
      return control(controlType.rstStream, 0, words(frame.streamId & streamIdMask, frame.status));
    case 'settings': {
      const body = Buffer.alloc(4 + frame.entries.length * 8);
      body.writeUInt32BE(frame.entries.length, 0);
      frame.entries.forEach((entry, index) => {
        body.writeUInt32BE(((entry.flags & 0xff) << 24) | (entry.id & 0xffffff), 4 + index * 8);
        body.writeUInt32BE(entry.value, 8 + index * 8);
      });
      return control(controlType.settings, frame.clear ? flagClearSettings : 0, body);
    }
    case 'ping':
      return control(controlType.ping, 0, words(frame.id));
    case 'goaway':
      return control(
        controlType.goAway,
        0,
        words(frame.lastGoodStreamId & streamIdMask, frame.status),
      );
    case 'window_update':
      return control(
        controlType.windowUpdate,
        0,
        words(frame.streamId & streamIdMask, frame.delta & streamIdMask),
      );
    case 'unknown':
      throw new Error('an unknown control frame cannot be encoded');
  }
}

function control(type: number, flags: number, body: Buffer): Buffer {
  if (body.length > maxFrameLength) throw new Error('a SPDY frame body cannot exceed 16 MiB');
  const header = Buffer.alloc(8);
  header.writeUInt32BE((0x8000 | spdyVersion) * 0x10000 + type, 0);
  header.writeUInt32BE(frameWord(flags, body.length), 4);
  return Buffer.concat([header, body]);
}

const frameWord = (flags: number, length: number) => ((flags & 0xff) * 0x1000000 + length) >>> 0;

function words(...values: number[]): Buffer {
  const bytes = Buffer.alloc(values.length * 4);
  values.forEach((value, index) => bytes.writeUInt32BE(value >>> 0, index * 4));
  return bytes;
}

const withStreamId = (streamId: number, rest: Buffer) =>
  Buffer.concat([words(streamId & streamIdMask), rest]);
