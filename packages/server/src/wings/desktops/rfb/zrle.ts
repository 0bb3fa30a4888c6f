import { constants, createInflate, type Inflate } from 'node:zlib';
import type { ByteInput } from './byte-input.js';
import type { Framebuffer, Rect } from './framebuffer.js';
import { checkedLength, rfbLimits } from './protocol.js';
import { RfbProtocolError } from './rfb-errors.js';
import { decodeZrleTile, zrleTileSide } from './zrle-tile.js';

/**
 * Follows the tiles of one ZRLE rectangle as inflated bytes arrive, in whatever pieces zlib hands
 * them over. A tile cut by a piece's end waits for the next piece (a tile is at most about 16 KiB
 * encoded, so that is all ever held back).
 */
export class ZrleRectTiles {
  readonly #rect: Rect;
  readonly #framebuffer: Framebuffer;
  readonly #across: number;
  readonly #count: number;
  readonly #scratch = new Uint8Array(zrleTileSide * zrleTileSide * 4);
  #next = 0;
  #pending: Buffer = Buffer.alloc(0);

  constructor(rect: Rect, framebuffer: Framebuffer) {
    this.#rect = rect;
    this.#framebuffer = framebuffer;
    this.#across = Math.ceil(rect.width / zrleTileSide);
    this.#count = this.#across * Math.ceil(rect.height / zrleTileSide);
  }

  get done(): boolean {
    return this.#next === this.#count;
  }

  push(piece: Buffer): void {
    if (this.done)
      throw new RfbProtocolError('ZRLE data going on past the last tile of its rectangle');
    const bytes = this.#pending.length > 0 ? Buffer.concat([this.#pending, piece]) : piece;
    let at = 0;
    while (!this.done) {
      const tile = this.#tile(this.#next);
      const end = decodeZrleTile(bytes, at, tile.width, tile.height, this.#scratch);
      if (end === undefined) break;
      this.#framebuffer.putRgba(tile, this.#scratch);
      at = end;
      this.#next++;
    }
    this.#pending = bytes.subarray(at);
    if (this.done && this.#pending.length > 0) {
      throw new RfbProtocolError('ZRLE data going on past the last tile of its rectangle');
    }
  }

  /** Tiles go left to right, then top to bottom. */
  #tile(index: number): Rect {
    const x = (index % this.#across) * zrleTileSide;
    const y = Math.floor(index / this.#across) * zrleTileSide;
    return {
      x: this.#rect.x + x,
      y: this.#rect.y + y,
      width: Math.min(zrleTileSide, this.#rect.width - x),
      height: Math.min(zrleTileSide, this.#rect.height - y),
    };
  }
}

/**
 * ZRLE for one connection (RFC 6143 §7.7.6): all its rectangles share one zlib stream, so the
 * inflater lives as long as the connection. Inflating runs in Node's zlib (off the event loop);
 * each piece of compressed data is handed over and its output applied before the next is read.
 */
export class ZrleDecoder {
  readonly #inflate: Inflate;
  #tiles: ZrleRectTiles | undefined;
  #failure: Error | undefined;

  constructor() {
    this.#inflate = createInflate({ flush: constants.Z_SYNC_FLUSH });
    this.#inflate.on('data', (piece: Buffer) => {
      if (this.#failure) return;
      try {
        if (!this.#tiles) throw new RfbProtocolError('ZRLE data outside any rectangle');
        this.#tiles.push(piece);
      } catch (error) {
        this.#failure = error as Error;
      }
    });
    this.#inflate.on('error', (error: Error) => {
      this.#failure ??= new RfbProtocolError(`a broken ZRLE zlib stream (${error.message})`);
    });
  }

  /**
   * Reads one ZRLE rectangle's payload (u32 length, zlib data) from `input`, handing every piece
   * to `forward` as it is read and applying the tiles to `framebuffer`.
   */
  async readRect(
    rect: Rect,
    framebuffer: Framebuffer,
    input: ByteInput,
    forward: (bytes: Buffer) => Promise<void> | undefined,
  ): Promise<void> {
    const header = await input.read(4);
    await forward(header);
    let left = checkedLength(header.readUInt32BE(0), rfbLimits.zrleBytes, 'ZRLE data');
    this.#tiles = new ZrleRectTiles(rect, framebuffer);
    while (left > 0) {
      const piece = await input.readUpTo(left);
      left -= piece.length;
      await forward(piece);
      await this.#inflatePiece(piece);
      if (this.#failure) throw this.#failure;
    }
    // zlib hands over a write's output before calling back, so every tile is in by now.
    if (!this.#tiles.done) {
      throw new RfbProtocolError('ZRLE data ending before the last tile of its rectangle');
    }
    this.#tiles = undefined;
  }

  close(): void {
    this.#inflate.destroy();
  }

  #inflatePiece(piece: Buffer): Promise<void> {
    return new Promise((resolve) => {
      // A broken zlib stream closes without calling back the write it failed on.
      const done = () => {
        this.#inflate.off('close', done);
        resolve();
      };
      this.#inflate.on('close', done);
      this.#inflate.write(piece, done);
    });
  }
}
