import type { ByteInput } from './byte-input.js';
import type { Framebuffer, Rect } from './framebuffer.js';
import { InflateBehind } from './inflate-behind.js';
import { checkedLength, rfbLimits } from './protocol.js';
import { RfbProtocolError } from './rfb-errors.js';
import { decodeZrleTile, zrleTileSide } from './zrle-tile.js';

/**
 * Where each tile is decoded before it goes into the framebuffer: one for all, since a tile is
 * decoded and copied out in one go (a rectangle each had cost a 16 KiB allocation, and
 * TigerVNC sends tens of rectangles an update).
 */
const scratch = new Uint32Array(zrleTileSide * zrleTileSide);
const empty = Buffer.alloc(0);

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
  #next = 0;
  #pending: Buffer = empty;

  constructor(rect: Rect, framebuffer: Framebuffer) {
    this.#rect = rect;
    this.#framebuffer = framebuffer;
    this.#across = Math.ceil(rect.width / zrleTileSide);
    this.#count = this.#across * Math.ceil(rect.height / zrleTileSide);
  }

  get done(): boolean {
    return this.#next === this.#count;
  }

  /** Takes a piece that belongs to this rectangle alone. */
  push(piece: Buffer): void {
    if (this.feed(piece).length > 0) {
      throw new RfbProtocolError('ZRLE data going on past the last tile of its rectangle');
    }
  }

  /**
   * Decodes the tiles `piece` completes and returns what comes after this rectangle's last tile
   * (empty until it is done): inflated data runs on from one rectangle into the next.
   */
  feed(piece: Buffer): Buffer {
    if (this.done) return piece;
    const bytes = this.#pending.length > 0 ? Buffer.concat([this.#pending, piece]) : piece;
    let at = 0;
    while (!this.done) {
      const tile = this.#tile(this.#next);
      const end = decodeZrleTile(bytes, at, tile.width, tile.height, scratch);
      if (end === undefined) break;
      this.#framebuffer.putWords(tile, scratch);
      at = end;
      this.#next++;
    }
    if (this.done) {
      this.#pending = empty;
      return bytes.subarray(at);
    }
    this.#pending = bytes.subarray(at);
    return empty;
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
 * Compressed bytes zlib may be behind the wire by before reading waits for it: a screen update's
 * worth, so forwarding never waits on zlib in practice, and the memory stays bounded.
 */
const maxBehindBytes = 256 * 1024;

/**
 * ZRLE for one connection (RFC 6143 §7.7.6): all its rectangles share one zlib stream, so the
 * inflater lives as long as the connection. Inflating runs on zlib's thread pool, behind the
 * forwarding (inflate-behind.ts): `streamRect` hands the compressed bytes to zlib and returns
 * without waiting, and `settled` waits until every tile is in the framebuffer.
 *
 * Why: each zlib write is a round trip to the thread pool and back, which on a busy machine
 * costs a scheduler wake-up or two (about 0.5 ms). A desktop sends tens of ZRLE rectangles per
 * update (TigerVNC: one per changed area); waiting for each before reading the next held every
 * update up by tens of ms and halved the frames noVNC could show.
 *
 * The inflated bytes run on from one rectangle into the next (the desktop flushes zlib at each
 * rectangle's end), and the tiles are taken in order from the queue of rectangles. `settled`
 * waits for the rectangles handed in before it was called, not for zlib to go idle: the next
 * update may be streaming in meanwhile (server-messages.ts reads on while the last one decodes).
 */
export class ZrleDecoder {
  readonly #zlib = new InflateBehind('ZRLE zlib stream', (piece) => this.#tiles(piece));
  /** Rectangles whose data went (or is going) to zlib, oldest first, until all tiles are in. */
  readonly #rects: ZrleRectTiles[] = [];
  /** Rectangles handed in so far, and those with all their tiles in the framebuffer. */
  #handedIn = 0;
  #done = 0;

  /**
   * Reads one ZRLE rectangle's payload (u32 length, zlib data) from `input`, handing every piece
   * to `forward` as it is read, and resolves once its tiles are in `framebuffer`.
   */
  async readRect(
    rect: Rect,
    framebuffer: Framebuffer,
    input: ByteInput,
    forward: (bytes: Buffer) => Promise<void> | undefined,
  ): Promise<void> {
    await this.streamRect(rect, framebuffer, input, forward);
    await this.settled();
  }

  /**
   * As `readRect`, but resolves once the payload is read and forwarded: its tiles go into
   * `framebuffer` behind, and `settled` waits for them.
   */
  async streamRect(
    rect: Rect,
    framebuffer: Framebuffer,
    input: ByteInput,
    forward: (bytes: Buffer) => Promise<void> | undefined,
  ): Promise<void> {
    const header = await input.read(4);
    await forward(header);
    let left = checkedLength(header.readUInt32BE(0), rfbLimits.zrleBytes, 'ZRLE data');
    const zlib = this.#zlib;
    if (zlib.failure) throw zlib.failure;
    this.#rects.push(new ZrleRectTiles(rect, framebuffer));
    this.#handedIn++;
    while (left > 0) {
      const piece = await input.readUpTo(left);
      left -= piece.length;
      await forward(piece);
      zlib.write(piece);
      while (zlib.behindBytes > maxBehindBytes && !zlib.failure) await zlib.progress();
      if (zlib.failure) throw zlib.failure;
    }
  }

  /**
   * Resolves once every rectangle handed in so far has all its tiles in the framebuffer; rejects
   * on a broken stream or a rectangle whose data ended before its last tile. Call it once the
   * rectangles' data is all handed in (after `streamRect`).
   */
  async settled(): Promise<void> {
    const target = this.#handedIn;
    const zlib = this.#zlib;
    for (;;) {
      this.#dropDone();
      if (zlib.failure) throw zlib.failure;
      if (this.#done >= target) return;
      // zlib hands over a write's output before calling back: idle, it has inflated all it had.
      if (zlib.idle) {
        zlib.fail(new RfbProtocolError('ZRLE data ending before the last tile of its rectangle'));
        throw zlib.failure!;
      }
      await zlib.progress();
    }
  }

  close(): void {
    this.#zlib.close();
  }

  #dropDone(): void {
    while (this.#rects[0]?.done) {
      this.#rects.shift();
      this.#done++;
    }
  }

  /** Inflated bytes: the tiles of the oldest rectangle not done, then of the next. Throws on bad tiles. */
  #tiles(piece: Buffer): void {
    let rest = piece;
    while (rest.length > 0) {
      this.#dropDone();
      const rect = this.#rects[0];
      if (!rect) {
        throw new RfbProtocolError('ZRLE data going on past the last tile of its rectangle');
      }
      rest = rect.feed(rest);
    }
  }
}
