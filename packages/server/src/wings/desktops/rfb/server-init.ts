import type { ByteInput } from './byte-input.js';
import { decodePixelFormat, encodePixelFormat, type PixelFormat } from './pixel-format.js';
import { checkedLength, rfbLimits } from './protocol.js';

/** ServerInit (RFC 6143 §7.3.2): the screen's size, the server's pixel format, its name. */
export interface ServerInit {
  width: number;
  height: number;
  pixelFormat: PixelFormat;
  /** UTF-8 (RFC 6143 leaves it open; TigerVNC and noVNC use UTF-8). */
  name: string;
}

export async function readServerInit(input: ByteInput): Promise<ServerInit> {
  const fixed = await input.read(24);
  const nameLength = checkedLength(fixed.readUInt32BE(20), rfbLimits.nameBytes, 'a desktop name');
  const name = (await input.read(nameLength)).toString('utf8');
  return {
    width: fixed.readUInt16BE(0),
    height: fixed.readUInt16BE(2),
    pixelFormat: decodePixelFormat(fixed, 4),
    name,
  };
}

export function encodeServerInit(init: ServerInit): Buffer {
  const name = Buffer.from(init.name, 'utf8');
  const fixed = Buffer.alloc(24);
  fixed.writeUInt16BE(init.width, 0);
  fixed.writeUInt16BE(init.height, 2);
  encodePixelFormat(init.pixelFormat).copy(fixed, 4);
  fixed.writeUInt32BE(name.length, 20);
  return Buffer.concat([fixed, name]);
}
