/**
 * RDP's share PDUs (MS-RDPBCGR 2.2.8, 2.2.9): the Confirm Active capability sets, the connection
 * finalization, input events, and the headers every slow-path PDU carries. Little-endian.
 */

export const pduType = { demandActive: 0x1, confirmActive: 0x3, deactivateAll: 0x6, data: 0x7 };
export const pduType2 = {
  update: 2,
  control: 20,
  pointer: 27,
  input: 28,
  synchronize: 31,
  fontList: 39,
  fontMap: 40,
  setErrorInfo: 47,
} as const;

class Writer {
  private readonly chunks: Buffer[] = [];
  u8(value: number) {
    this.chunks.push(Buffer.from([value]));
    return this;
  }
  u16(value: number) {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(value);
    this.chunks.push(b);
    return this;
  }
  u32(value: number) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value >>> 0);
    this.chunks.push(b);
    return this;
  }
  bytes(value: Buffer | number) {
    this.chunks.push(typeof value === 'number' ? Buffer.alloc(value) : value);
    return this;
  }
  done() {
    return Buffer.concat(this.chunks);
  }
}

function capability(type: number, body: Buffer): Buffer {
  return new Writer()
    .u16(type)
    .u16(body.length + 4)
    .bytes(body)
    .done();
}

/**
 * The capability sets the client confirms: slow-path or fast-path output (fast-path.ts),
 * no drawing orders and no bitmap cache (so every change arrives as a bitmap update the proxy
 * decodes into its framebuffer), 32 bits per pixel, scancode and Unicode keyboard input.
 */
function capabilitySets(width: number, height: number): Buffer[] {
  const general = new Writer()
    .u16(1) // OSMAJORTYPE_WINDOWS
    .u16(3) // OSMINORTYPE_WINDOWS_NT
    .u16(0x0200) // TS_CAPS_PROTOCOLVERSION
    .u16(0)
    .u16(0) // generalCompressionTypes
    // FASTPATH_OUTPUT_SUPPORTED, LONG_CREDENTIALS_SUPPORTED, NO_BITMAP_COMPRESSION_HDR
    .u16(0x0001 | 0x0004 | 0x0400)
    .u16(0)
    .u16(0)
    .u16(0)
    .u8(1) // refreshRectSupport
    .u8(1) // suppressOutputSupport
    .done();
  const bitmap = new Writer()
    .u16(32)
    .u16(1)
    .u16(1)
    .u16(1)
    .u16(width)
    .u16(height)
    .u16(0)
    .u16(1) // desktopResizeFlag
    .u16(1) // bitmapCompressionFlag: must be set; decoding what comes is ours
    .u8(0)
    .u8(0)
    .u16(1) // multipleRectangleSupport
    .u16(0)
    .done();
  const order = new Writer()
    .bytes(16) // terminalDescriptor
    .u32(0)
    .u16(1)
    .u16(20)
    .u16(0)
    .u16(1) // maximumOrderLevel
    .u16(0)
    .u16(0x0002 | 0x0008) // NEGOTIATEORDERSUPPORT, ZEROBOUNDSDELTASSUPPORT
    .bytes(32) // orderSupport: none
    .u16(0)
    .u16(0)
    .u32(0)
    .u32(0) // desktopSaveSize
    .u16(0)
    .u16(0)
    .u16(0)
    .u16(0)
    .done();
  const pointer = new Writer().u16(1).u16(20).u16(21).done();
  const input = new Writer()
    .u16(0x0001 | 0x0004 | 0x0010) // SCANCODES, MOUSEX, UNICODE
    .u16(0)
    .u32(0x409)
    .u32(4)
    .u32(0)
    .u32(12)
    .bytes(64)
    .done();
  return [
    capability(1, general),
    capability(2, bitmap),
    capability(3, order),
    capability(8, pointer),
    capability(13, input),
  ];
}

function shareControl(type: number, source: number, body: Buffer): Buffer {
  return new Writer()
    .u16(body.length + 6)
    .u16(type | 0x10)
    .u16(source)
    .bytes(body)
    .done();
}

export function confirmActive(userId: number, shareId: number, width: number, height: number) {
  const descriptor = Buffer.from('POSTERN\0');
  const sets = capabilitySets(width, height);
  const combined = Buffer.concat(sets);
  const body = new Writer()
    .u32(shareId)
    .u16(0x03ea) // originatorId: the server's channel
    .u16(descriptor.length)
    .u16(combined.length + 4)
    .bytes(descriptor)
    .u16(sets.length)
    .u16(0)
    .bytes(combined)
    .done();
  return shareControl(pduType.confirmActive, userId, body);
}

/** A Data PDU (2.2.8.1.1.1.2) of `type2` carrying `data`. */
export function dataPdu(userId: number, shareId: number, type2: number, data: Buffer): Buffer {
  const body = new Writer()
    .u32(shareId)
    .u8(0)
    .u8(1) // STREAM_LOW
    .u16(data.length + 4)
    .u8(type2)
    .u8(0)
    .u16(0)
    .bytes(data)
    .done();
  return shareControl(pduType.data, userId, body);
}

/** Connection finalization (1.3.1.1): synchronize, cooperate, request control, font list. */
export function finalizationPdus(userId: number, shareId: number): Buffer[] {
  const data = (type2: number, body: Buffer) => dataPdu(userId, shareId, type2, body);
  return [
    data(pduType2.synchronize, new Writer().u16(1).u16(0x03ea).done()),
    data(pduType2.control, new Writer().u16(4).u16(0).u32(0).done()), // CTRLACTION_COOPERATE
    data(pduType2.control, new Writer().u16(1).u16(0).u32(0).done()), // CTRLACTION_REQUEST_CONTROL
    data(pduType2.fontList, new Writer().u16(0).u16(0).u16(0x0003).u16(0x0032).done()),
  ];
}

export type InputEvent =
  | { type: 'scancode'; code: number; extended: boolean; down: boolean }
  | { type: 'unicode'; code: number; down: boolean }
  | { type: 'mouse'; flags: number; x: number; y: number };

/** A slow-path Input Event PDU (2.2.8.1.1.3) with `events`. */
export function inputPdu(userId: number, shareId: number, events: InputEvent[]): Buffer {
  const w = new Writer().u16(events.length).u16(0);
  for (const event of events) {
    w.u32(0);
    if (event.type === 'scancode') {
      const flags = (event.down ? 0 : 0x8000) | (event.extended ? 0x0100 : 0);
      w.u16(0x0004).u16(flags).u16(event.code).u16(0);
    } else if (event.type === 'unicode') {
      w.u16(0x0005)
        .u16(event.down ? 0 : 0x8000)
        .u16(event.code)
        .u16(0);
    } else {
      w.u16(0x8001).u16(event.flags).u16(event.x).u16(event.y);
    }
  }
  return dataPdu(userId, shareId, pduType2.input, w.done());
}

/** The desktop size in a Demand Active's bitmap capability set, if it has one. */
export function desktopSizeOf(pdu: Buffer): { width: number; height: number } | undefined {
  const sourceLength = pdu.readUInt16LE(10);
  let at = 14 + sourceLength;
  const count = pdu.readUInt16LE(at);
  at += 4;
  for (let i = 0; i < count && at + 4 <= pdu.length; i++) {
    const type = pdu.readUInt16LE(at);
    const length = pdu.readUInt16LE(at + 2);
    if (type === 2 && length >= 16) {
      return { width: pdu.readUInt16LE(at + 12), height: pdu.readUInt16LE(at + 14) };
    }
    if (length < 4) break;
    at += length;
  }
  return undefined;
}
