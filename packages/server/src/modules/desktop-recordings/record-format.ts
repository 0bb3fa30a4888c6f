import type { DesktopRecordingEvent } from '@postern/contracts';

/**
 * The bytes of `<sid>.desktop.events` (docs/desktops.md, "Recordings"): a magic, then records,
 * each `u32 length` (of what follows it) · `u8 type` · `u32 ms` · the type's fields, little
 * endian. A rectangle's pixels are stored as zlib's deflate of its RGBA rows, the very bytes the
 * player inflates, so playing a recording never recompresses anything.
 */
export const desktopEventsMagic = Buffer.from('PSTNDSK1', 'latin1');

/** What the first record says about the recording; a crash seal reads it back. */
export interface DesktopRecordingHeader {
  version: 1;
  sid: string;
  /** Epoch ms of the recording's start: `ms` of every record counts from here. */
  startedAt: number;
  participants: string[];
  desktopName: string;
}

export type StoredRecord =
  | { type: 'header'; ms: number; header: DesktopRecordingHeader }
  | { type: 'screen'; ms: number; width: number; height: number }
  | {
      type: 'rect';
      ms: number;
      x: number;
      y: number;
      width: number;
      height: number;
      keyframe: boolean;
      /** zlib deflate of the RGBA rows. */
      pixels: Uint8Array;
    }
  | { type: 'clipboard'; ms: number; direction: 'in' | 'out'; bytes: number }
  | { type: 'end'; ms: number };

const typeCodes = { header: 0, screen: 1, rect: 2, clipboard: 3, end: 4 } as const;
/** A longer record is damage, not data: a whole 8192×8192 screen that does not compress is 256 MiB. */
export const maxRecordBytes = 300 * 1024 * 1024;
const headBytes = 4 + 1 + 4;

export function encodeRecord(record: StoredRecord): Buffer {
  const body = recordBody(record);
  const out = Buffer.allocUnsafe(headBytes + body.length);
  out.writeUInt32LE(1 + 4 + body.length, 0);
  out.writeUInt8(typeCodes[record.type], 4);
  out.writeUInt32LE(Math.max(0, Math.round(record.ms)), 5);
  out.set(body, headBytes);
  return out;
}

function recordBody(record: StoredRecord): Uint8Array {
  switch (record.type) {
    case 'header':
      return Buffer.from(JSON.stringify(record.header), 'utf8');
    case 'screen':
      return u16s(record.width, record.height);
    case 'rect': {
      const fields = u16s(record.x, record.y, record.width, record.height);
      return Buffer.concat([fields, Uint8Array.of(record.keyframe ? 1 : 0), record.pixels]);
    }
    case 'clipboard': {
      const body = Buffer.alloc(5);
      body.writeUInt8(record.direction === 'in' ? 0 : 1, 0);
      body.writeUInt32LE(Math.min(0xffffffff, Math.max(0, record.bytes)), 1);
      return body;
    }
    case 'end':
      return Buffer.alloc(0);
  }
}

function u16s(...values: number[]): Buffer {
  const out = Buffer.alloc(values.length * 2);
  values.forEach((value, i) => out.writeUInt16LE(value, i * 2));
  return out;
}

/** A record read back, with where it starts and ends in the events blob. */
export interface PlacedRecord {
  record: StoredRecord;
  at: number;
  end: number;
}

/**
 * The whole records of `data`, which starts at byte `base` of the blob (0: the blob's start,
 * with its magic). Stops at the first record that is cut short or makes no sense, and says
 * where: `end` is where the last good record ends, `damaged` whether what follows is not
 * merely a record still being written.
 */
export function parseRecords(
  data: Uint8Array,
  base = 0,
): { records: PlacedRecord[]; end: number; damaged: boolean } {
  const buffer = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  if (base === 0) {
    if (buffer.length < desktopEventsMagic.length) return { records: [], end: 0, damaged: false };
    if (!buffer.subarray(0, desktopEventsMagic.length).equals(desktopEventsMagic))
      return { records: [], end: 0, damaged: true };
    at = desktopEventsMagic.length;
  }
  const records: PlacedRecord[] = [];
  while (at + 4 <= buffer.length) {
    const length = buffer.readUInt32LE(at);
    if (length < 5 || length > maxRecordBytes) return { records, end: base + at, damaged: true };
    if (at + 4 + length > buffer.length) break;
    const record = decodeBody(buffer.subarray(at + 4, at + 4 + length));
    if (!record) return { records, end: base + at, damaged: true };
    records.push({ record, at: base + at, end: base + at + 4 + length });
    at += 4 + length;
  }
  return { records, end: base + at, damaged: false };
}

function decodeBody(body: Buffer): StoredRecord | undefined {
  const type = body.readUInt8(0);
  const ms = body.readUInt32LE(1);
  const fields = body.subarray(5);
  switch (type) {
    case typeCodes.header: {
      try {
        const header = JSON.parse(fields.toString('utf8')) as DesktopRecordingHeader;
        return typeof header.sid === 'string' ? { type: 'header', ms, header } : undefined;
      } catch {
        return undefined;
      }
    }
    case typeCodes.screen:
      if (fields.length < 4) return undefined;
      return { type: 'screen', ms, width: fields.readUInt16LE(0), height: fields.readUInt16LE(2) };
    case typeCodes.rect: {
      if (fields.length < 9) return undefined;
      const [x, y, width, height] = [0, 2, 4, 6].map((at) => fields.readUInt16LE(at)) as [
        number,
        number,
        number,
        number,
      ];
      const keyframe = (fields.readUInt8(8) & 1) === 1;
      return { type: 'rect', ms, x, y, width, height, keyframe, pixels: fields.subarray(9) };
    }
    case typeCodes.clipboard:
      if (fields.length < 5) return undefined;
      return {
        type: 'clipboard',
        ms,
        direction: fields.readUInt8(0) === 0 ? 'in' : 'out',
        bytes: fields.readUInt32LE(1),
      };
    case typeCodes.end:
      return { type: 'end', ms };
    default:
      return undefined;
  }
}

/** The event the player gets for a record (the header is for the server alone). */
export function toEvent(record: StoredRecord): DesktopRecordingEvent | undefined {
  switch (record.type) {
    case 'header':
      return undefined;
    case 'rect': {
      const { ms, x, y, width, height, keyframe, pixels } = record;
      const rgba = Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength);
      const event = {
        type: 'rect',
        ms,
        x,
        y,
        width,
        height,
        rgba: rgba.toString('base64'),
      } as const;
      return keyframe ? { ...event, keyframe: true } : event;
    }
    default:
      return record;
  }
}
