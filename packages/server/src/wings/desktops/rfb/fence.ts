import type { ByteInput } from './byte-input.js';
import { clientMessageType, rfbLimits } from './protocol.js';
import { RfbProtocolError } from './rfb-errors.js';

/**
 * Fence (rfbproto §7.5.9 and §7.7.4), the same layout both ways: type 248, 3 bytes padding, u32
 * flags, u8 length, then at most 64 bytes of payload. TigerVNC uses fences to measure the round
 * trip for its congestion control, and noVNC answers them; with ContinuousUpdates they are what
 * keeps updates flowing without a request per update. The proxy relays them in order and never
 * answers one itself: a fence it answered would tell the desktop the browser had drawn what it
 * has not.
 */
export interface Fence {
  type: 'fence';
  flags: number;
  payload: Buffer;
  wire: Buffer;
}

export const fenceFlag = {
  blockBefore: 1 << 0,
  blockAfter: 1 << 1,
  syncNext: 1 << 2,
  request: 1 << 31,
} as const;

export async function readFence(input: ByteInput): Promise<Fence> {
  const header = await input.read(9);
  const length = header[8]!;
  if (length > rfbLimits.fencePayloadBytes) {
    throw new RfbProtocolError(
      `a Fence with ${length} bytes of payload, over the limit of ${rfbLimits.fencePayloadBytes}`,
    );
  }
  const payload = await input.read(length);
  return {
    type: 'fence',
    flags: header.readUInt32BE(4),
    payload,
    wire: Buffer.concat([header, payload]),
  };
}

/** A Fence message, either way (the type is 248 in both directions). */
export function encodeFence(flags: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  if (payload.length > rfbLimits.fencePayloadBytes) {
    throw new RangeError(`a Fence payload of ${payload.length} bytes`);
  }
  const bytes = Buffer.alloc(9 + payload.length);
  bytes[0] = clientMessageType.fence;
  bytes.writeUInt32BE(flags >>> 0, 4);
  bytes[8] = payload.length;
  payload.copy(bytes, 9);
  return bytes;
}
