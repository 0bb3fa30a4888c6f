/**
 * The screen layout of ExtendedDesktopSize and SetDesktopSize (rfbproto §7.8.2, §7.5.8): each
 * screen is 16 bytes (id, x, y, width, height, flags), after a count byte and 3 bytes padding.
 */
export interface Screen {
  id: number;
  x: number;
  y: number;
  width: number;
  height: number;
  flags: number;
}

export const screenBytes = 16;

export function encodeScreens(screens: Screen[]): Buffer {
  const bytes = Buffer.alloc(screens.length * screenBytes);
  screens.forEach((screen, i) => {
    const at = i * screenBytes;
    bytes.writeUInt32BE(screen.id, at);
    bytes.writeUInt16BE(screen.x, at + 4);
    bytes.writeUInt16BE(screen.y, at + 6);
    bytes.writeUInt16BE(screen.width, at + 8);
    bytes.writeUInt16BE(screen.height, at + 10);
    bytes.writeUInt32BE(screen.flags, at + 12);
  });
  return bytes;
}

export function decodeScreens(bytes: Buffer, count: number): Screen[] {
  return Array.from({ length: count }, (_, i) => {
    const at = i * screenBytes;
    return {
      id: bytes.readUInt32BE(at),
      x: bytes.readUInt16BE(at + 4),
      y: bytes.readUInt16BE(at + 6),
      width: bytes.readUInt16BE(at + 8),
      height: bytes.readUInt16BE(at + 10),
      flags: bytes.readUInt32BE(at + 12),
    };
  });
}
