import {
  controlType,
  flagClearSettings,
  flagFin,
  flagUnidirectional,
  SpdyProtocolError,
  spdyVersion,
  type Frame,
  type SettingEntry,
} from './frames.js';

const streamIdMask = 0x7fffffff;

/**
 * Reads one frame from `bytes` at `at`: the frame and where the next one starts, or undefined
 * when the frame is not complete yet. Frames longer than `maxLength` are refused before their
 * body arrives, so a peer cannot make the reader buffer 16 MiB for a frame it will reject.
 */
export function decodeFrame(
  bytes: Buffer,
  at: number,
  maxLength: number,
): { frame: Frame; next: number } | undefined {
  if (bytes.length - at < 8) return undefined;
  const first = bytes.readUInt32BE(at);
  const flags = bytes.readUInt8(at + 4);
  const length = bytes.readUInt32BE(at + 4) & 0xffffff;
  if (length > maxLength) {
    throw new SpdyProtocolError(`a frame of ${length} bytes exceeds the limit of ${maxLength}`);
  }
  if (bytes.length - at - 8 < length) return undefined;
  const body = bytes.subarray(at + 8, at + 8 + length);
  const next = at + 8 + length;
  if ((first & 0x80000000) === 0) {
    const streamId = first & streamIdMask;
    if (streamId === 0) throw new SpdyProtocolError('a data frame names stream 0');
    return { frame: { type: 'data', streamId, fin: (flags & flagFin) !== 0, data: body }, next };
  }
  const version = (first >>> 16) & 0x7fff;
  if (version !== spdyVersion) throw new SpdyProtocolError(`SPDY version ${version} is not 3`);
  return { frame: decodeControl(first & 0xffff, flags, body), next };
}

function decodeControl(type: number, flags: number, body: Buffer): Frame {
  const fin = (flags & flagFin) !== 0;
  switch (type) {
    case controlType.synStream: {
      atLeast(body, 10, 'SYN_STREAM');
      return {
        type: 'syn_stream',
        streamId: nonZeroStream(body.readUInt32BE(0) & streamIdMask, 'SYN_STREAM'),
        associatedToStreamId: body.readUInt32BE(4) & streamIdMask,
        priority: body.readUInt8(8) >>> 5,
        fin,
        unidirectional: (flags & flagUnidirectional) !== 0,
        headerBlock: body.subarray(10),
      };
    }
    case controlType.synReply:
    case controlType.headers: {
      const name = type === controlType.synReply ? 'SYN_REPLY' : 'HEADERS';
      atLeast(body, 4, name);
      const streamId = nonZeroStream(body.readUInt32BE(0) & streamIdMask, name);
      const frameType = type === controlType.synReply ? 'syn_reply' : 'headers';
      return { type: frameType, streamId, fin, headerBlock: body.subarray(4) };
    }
    case controlType.rstStream:
      exactly(body, 8, 'RST_STREAM');
      return {
        type: 'rst_stream',
        streamId: nonZeroStream(body.readUInt32BE(0) & streamIdMask, 'RST_STREAM'),
        status: body.readUInt32BE(4),
      };
    case controlType.settings:
      return decodeSettings(flags, body);
    case controlType.ping:
      exactly(body, 4, 'PING');
      return { type: 'ping', id: body.readUInt32BE(0) };
    case controlType.goAway:
      exactly(body, 8, 'GOAWAY');
      return {
        type: 'goaway',
        lastGoodStreamId: body.readUInt32BE(0) & streamIdMask,
        status: body.readUInt32BE(4),
      };
    case controlType.windowUpdate: {
      exactly(body, 8, 'WINDOW_UPDATE');
      const delta = body.readUInt32BE(4) & streamIdMask;
      if (delta === 0) throw new SpdyProtocolError('a WINDOW_UPDATE of 0 bytes');
      return { type: 'window_update', streamId: body.readUInt32BE(0) & streamIdMask, delta };
    }
    default:
      return { type: 'unknown', controlType: type };
  }
}

function decodeSettings(flags: number, body: Buffer): Frame {
  atLeast(body, 4, 'SETTINGS');
  const count = body.readUInt32BE(0);
  if (body.length !== 4 + count * 8) {
    throw new SpdyProtocolError(`SETTINGS says ${count} entries in ${body.length - 4} bytes`);
  }
  const entries: SettingEntry[] = [];
  for (let index = 0; index < count; index++) {
    const word = body.readUInt32BE(4 + index * 8);
    entries.push({
      flags: word >>> 24,
      id: word & 0xffffff,
      value: body.readUInt32BE(8 + index * 8),
    });
  }
  return { type: 'settings', clear: (flags & flagClearSettings) !== 0, entries };
}

function atLeast(body: Buffer, length: number, name: string): void {
  if (body.length < length) throw new SpdyProtocolError(`${name} is shorter than ${length} bytes`);
}

function exactly(body: Buffer, length: number, name: string): void {
  if (body.length !== length) throw new SpdyProtocolError(`${name} is not ${length} bytes long`);
}

function nonZeroStream(streamId: number, name: string): number {
  if (streamId === 0) throw new SpdyProtocolError(`${name} names stream 0`);
  return streamId;
}
