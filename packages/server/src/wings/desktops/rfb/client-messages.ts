import type { ByteInput } from './byte-input.js';
import { readFence, type Fence } from './fence.js';
import type { Rect } from './framebuffer.js';
import {
  decodePixelFormat,
  encodePixelFormat,
  pixelFormatBytes,
  type PixelFormat,
} from './pixel-format.js';
import { clientMessageType, rfbLimits } from './protocol.js';
import { RfbProtocolError } from './rfb-errors.js';
import { decodeScreens, encodeScreens, screenBytes, type Screen } from './screens.js';

/**
 * Client-to-server messages (RFC 6143 §7.5, and SetDesktopSize, EnableContinuousUpdates and Fence
 * from rfbproto §7.5.8–10). Each parsed message keeps its bytes as read (`wire`) so the relay
 * forwards exactly what came.
 */
export type ClientMessage =
  | { type: 'set-pixel-format'; format: PixelFormat; wire: Buffer }
  | { type: 'set-encodings'; encodings: number[]; wire: Buffer }
  | { type: 'update-request'; incremental: boolean; rect: Rect; wire: Buffer }
  | { type: 'key'; down: boolean; keysym: number; wire: Buffer }
  | { type: 'pointer'; buttons: number; x: number; y: number; wire: Buffer }
  /** `wire` is absent when the text was over the limit and was read past, not kept. */
  | { type: 'cut-text'; length: number; wire?: Buffer }
  | { type: 'set-desktop-size'; width: number; height: number; screens: Screen[]; wire: Buffer }
  | { type: 'enable-continuous-updates'; enable: boolean; rect: Rect; wire: Buffer }
  | Fence;

/** Reads the next client message whole (they are all small, or bounded by `rfbLimits`). */
export async function readClientMessage(input: ByteInput): Promise<ClientMessage> {
  await input.need(1);
  const type = input.peekU8();
  switch (type) {
    case clientMessageType.setPixelFormat: {
      const wire = await input.read(4 + pixelFormatBytes);
      return { type: 'set-pixel-format', format: decodePixelFormat(wire, 4), wire };
    }
    case clientMessageType.setEncodings: {
      const header = await input.read(4);
      const count = header.readUInt16BE(2);
      if (count > rfbLimits.encodings) {
        throw new RfbProtocolError(
          `SetEncodings with ${count} encodings, over the limit of ${rfbLimits.encodings}`,
        );
      }
      const list = await input.read(count * 4);
      const encodings = Array.from({ length: count }, (_, i) => list.readInt32BE(i * 4));
      return { type: 'set-encodings', encodings, wire: Buffer.concat([header, list]) };
    }
    case clientMessageType.framebufferUpdateRequest: {
      const wire = await input.read(10);
      return { type: 'update-request', incremental: wire[1] !== 0, rect: rectAt(wire), wire };
    }
    case clientMessageType.keyEvent: {
      const wire = await input.read(8);
      return { type: 'key', down: wire[1] !== 0, keysym: wire.readUInt32BE(4), wire };
    }
    case clientMessageType.pointerEvent: {
      const wire = await input.read(6);
      const [buttons, x, y] = [wire[1]!, wire.readUInt16BE(2), wire.readUInt16BE(4)];
      return { type: 'pointer', buttons, x, y, wire };
    }
    case clientMessageType.clientCutText:
      return readCutText(input, 'ClientCutText');
    case clientMessageType.setDesktopSize: {
      const header = await input.read(8);
      const [width, height, count] = [header.readUInt16BE(2), header.readUInt16BE(4), header[6]!];
      if (width === 0 || height === 0 || count === 0) {
        throw new RfbProtocolError(`SetDesktopSize to ${width}×${height} with ${count} screens`);
      }
      const layout = await input.read(count * screenBytes);
      const screens = decodeScreens(layout, count);
      return {
        type: 'set-desktop-size',
        width,
        height,
        screens,
        wire: Buffer.concat([header, layout]),
      };
    }
    case clientMessageType.enableContinuousUpdates: {
      const wire = await input.read(10);
      return { type: 'enable-continuous-updates', enable: wire[1] !== 0, rect: rectAt(wire), wire };
    }
    case clientMessageType.fence:
      return readFence(input);
    default:
      throw new RfbProtocolError(`a client message of unknown type ${type}`);
  }
}

/** FramebufferUpdateRequest and EnableContinuousUpdates: x, y, width, height from byte 2. */
function rectAt(wire: Buffer): Rect {
  return {
    x: wire.readUInt16BE(2),
    y: wire.readUInt16BE(4),
    width: wire.readUInt16BE(6),
    height: wire.readUInt16BE(8),
  };
}

/**
 * ClientCutText and ServerCutText share a layout: type, 3 bytes padding, u32 length, Latin-1
 * text. A length with the top bit set is the Extended Clipboard format, which the proxy never
 * lets either side announce, so it is refused rather than read as 2 GiB of text.
 */
export async function readCutText(
  input: ByteInput,
  name: string,
): Promise<{ type: 'cut-text'; length: number; wire?: Buffer }> {
  const header = await input.read(8);
  const length = header.readUInt32BE(4);
  if (length >= 0x8000_0000) {
    throw new RfbProtocolError(`${name} in the Extended Clipboard format, which was not offered`);
  }
  if (length > rfbLimits.cutTextBytes) {
    await input.skip(length);
    return { type: 'cut-text', length };
  }
  const text = await input.read(length);
  return { type: 'cut-text', length, wire: Buffer.concat([header, text]) };
}

export function encodeSetPixelFormat(format: PixelFormat): Buffer {
  return Buffer.concat([
    Buffer.from([clientMessageType.setPixelFormat, 0, 0, 0]),
    encodePixelFormat(format),
  ]);
}

export function encodeSetEncodings(encodings: number[]): Buffer {
  const bytes = Buffer.alloc(4 + encodings.length * 4);
  bytes[0] = clientMessageType.setEncodings;
  bytes.writeUInt16BE(encodings.length, 2);
  encodings.forEach((value, i) => bytes.writeInt32BE(value, 4 + i * 4));
  return bytes;
}

export function encodeUpdateRequest(incremental: boolean, rect: Rect): Buffer {
  return encodeFlagAndRect(clientMessageType.framebufferUpdateRequest, incremental, rect);
}

export function encodeEnableContinuousUpdates(enable: boolean, rect: Rect): Buffer {
  return encodeFlagAndRect(clientMessageType.enableContinuousUpdates, enable, rect);
}

function encodeFlagAndRect(type: number, flag: boolean, rect: Rect): Buffer {
  const bytes = Buffer.alloc(10);
  bytes[0] = type;
  bytes[1] = flag ? 1 : 0;
  bytes.writeUInt16BE(rect.x, 2);
  bytes.writeUInt16BE(rect.y, 4);
  bytes.writeUInt16BE(rect.width, 6);
  bytes.writeUInt16BE(rect.height, 8);
  return bytes;
}

export function encodeKeyEvent(down: boolean, keysym: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes[0] = clientMessageType.keyEvent;
  bytes[1] = down ? 1 : 0;
  bytes.writeUInt32BE(keysym, 4);
  return bytes;
}

export function encodePointerEvent(buttons: number, x: number, y: number): Buffer {
  const bytes = Buffer.alloc(6);
  bytes[0] = clientMessageType.pointerEvent;
  bytes[1] = buttons;
  bytes.writeUInt16BE(x, 2);
  bytes.writeUInt16BE(y, 4);
  return bytes;
}

/** ClientCutText (type 6) or, with `type` 3, ServerCutText: the same layout. */
export function encodeCutText(
  text: Buffer,
  type: number = clientMessageType.clientCutText,
): Buffer {
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(text.length, 4);
  return Buffer.concat([header, text]);
}

export function encodeSetDesktopSize(width: number, height: number, screens: Screen[]): Buffer {
  const header = Buffer.alloc(8);
  header[0] = clientMessageType.setDesktopSize;
  header.writeUInt16BE(width, 2);
  header.writeUInt16BE(height, 4);
  header[6] = screens.length;
  return Buffer.concat([header, encodeScreens(screens)]);
}
