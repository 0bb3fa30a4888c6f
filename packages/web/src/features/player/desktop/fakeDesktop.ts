import type { DesktopRecordingEvent } from '@postern/contracts';
import type { DesktopSurface } from './rectDrawer';

/** zlib's deflate as base64, as the recorder stores a rectangle (the platform's CompressionStream). */
export async function deflateBase64(bytes: Uint8Array): Promise<string> {
  const stream = new CompressionStream('deflate');
  const writer = stream.writable.getWriter();
  void writer.write(bytes as Uint8Array<ArrayBuffer>);
  void writer.close();
  let binary = '';
  const reader = stream.readable.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read())
    for (const byte of read.value) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A rectangle of one value in every byte. */
export async function solidRect(
  x: number,
  y: number,
  width: number,
  height: number,
  value: number,
  keyframe = false,
): Promise<Extract<DesktopRecordingEvent, { type: 'rect' }>> {
  const rgba = await deflateBase64(new Uint8Array(width * height * 4).fill(value));
  return { type: 'rect', ms: 0, x, y, width, height, rgba, ...(keyframe ? { keyframe } : {}) };
}

/** A surface that records what it was told: `resize WxH`, `draw x,y WxH <first byte> <bytes>`. */
export class FakeSurface implements DesktopSurface {
  calls: string[] = [];
  resize(width: number, height: number) {
    this.calls.push(`resize ${width}x${height}`);
  }
  draw(x: number, y: number, width: number, height: number, rgba: Uint8ClampedArray) {
    this.calls.push(`draw ${x},${y} ${width}x${height} ${rgba[0]} ${rgba.length}`);
  }
}
