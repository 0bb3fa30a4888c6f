import { decodeFrame } from './frame-decode.js';
import type { Frame } from './frames.js';

/**
 * Cuts the bytes of a transport into frames. Chunks are kept as they come and joined only once a
 * whole frame is there, so a large frame arriving in many small reads is copied once, not once
 * per read. `push` throws SpdyProtocolError on a malformed frame (the connection turns that into
 * GOAWAY; nothing escapes to the event loop).
 */
export class FrameReader {
  #chunks: Buffer[] = [];
  #length = 0;
  /** Bytes needed before decoding is worth trying: a frame header, then the whole frame. */
  #need = 8;

  constructor(private readonly maxFrameLength: number) {}

  push(chunk: Buffer): Frame[] {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
    if (this.#length < this.#need) return [];
    const bytes = this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    const frames: Frame[] = [];
    let at = 0;
    for (;;) {
      const decoded = decodeFrame(bytes, at, this.maxFrameLength);
      if (!decoded) break;
      frames.push(decoded.frame);
      at = decoded.next;
    }
    const rest = bytes.subarray(at);
    this.#chunks = rest.length > 0 ? [rest] : [];
    this.#length = rest.length;
    this.#need = rest.length >= 8 ? 8 + (rest.readUInt32BE(4) & 0xffffff) : 8;
    return frames;
  }
}
