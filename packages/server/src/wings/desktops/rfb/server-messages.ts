import type { ByteInput } from './byte-input.js';
import { readCutText } from './client-messages.js';
import { readFence, type Fence } from './fence.js';
import type { Framebuffer, Rect } from './framebuffer.js';
import { checkedLength, encoding, rfbLimits, serverMessageType } from './protocol.js';
import { RawRectWriter } from './raw-rect.js';
import { RfbProtocolError } from './rfb-errors.js';
import { screenBytes } from './screens.js';
import { TightDecoder } from './tight.js';
import { ZrleDecoder } from './zrle.js';

/**
 * Server-to-client messages (RFC 6143 §7.6, and EndOfContinuousUpdates and Fence from rfbproto
 * §7.7.3–4). A FramebufferUpdate can be as large as the screen, so it is never held whole: it
 * goes to `forward` piece by piece as it is read, and into the framebuffer as it is decoded. The
 * other messages are small and come back whole (`wire`) for the caller to forward or drop.
 */
export type ServerMessage =
  | {
      type: 'update';
      /** What the update painted (pseudo-rectangles left out). */
      rects: Rect[];
      /** It held an ExtendedDesktopSize rectangle: the desktop takes SetDesktopSize. */
      resizable: boolean;
      /** The encoding of each rectangle, pseudo ones too, in order (for diagnostics). */
      encodings: number[];
    }
  | { type: 'colour-map'; wire: Buffer }
  | { type: 'bell'; wire: Buffer }
  /** `wire` is absent when the text was over the limit and was read past, not kept. */
  | { type: 'cut-text'; length: number; wire?: Buffer }
  /** The desktop takes EnableContinuousUpdates, or has stopped sending them. */
  | { type: 'end-of-continuous-updates'; wire: Buffer }
  | Fence;

export type Forward = (bytes: Buffer) => Promise<void> | undefined;
export type Flush = () => Promise<void> | undefined;

export interface ServerMessageReaderOptions {
  /** Called as an update's last byte is forwarded. */
  flush?: Flush;
  /**
   * false: rectangles are checked and forwarded but not decoded, so the framebuffer follows the
   * screen's size and not its pixels. For a session nobody records, where the copy would be
   * read by no one: decoding ZRLE is most of what the relay costs (docs/desktops.md).
   */
  pixels?: boolean;
}

/**
 * Reads what a desktop sends after ServerInit, keeping `framebuffer` current. It expects the
 * proxy's pixel format (the relay set it before asking for any update) and only the encodings
 * the relay lets browsers ask for; anything else is a protocol error.
 *
 * ZRLE tiles are inflated behind the forwarding (zrle.ts): an update goes through at the speed
 * it is read, and the reader goes on to the next message while its last tiles are decoded. So a
 * Fence or the next update that follows it reaches the browser without waiting for the proxy's
 * copy: a desktop that paces itself by fences (TigerVNC) would otherwise count the proxy's
 * decoding as network delay and send fewer frames. Every other change to the framebuffer waits
 * for the ZRLE rectangles and updates before it (a CopyRect may copy their pixels), and each
 * update ends (`endUpdate`) once all its tiles are in, in order. `flush`, when given, is called
 * as the update's last byte is forwarded.
 *
 * A failure found behind the reading (a broken zlib stream) rejects the next call to `next`
 * and resolves `decodeFailed` at once, so the caller can end the session without waiting for
 * the desktop's next message.
 */
export class ServerMessageReader {
  readonly #input: ByteInput;
  readonly #framebuffer: Framebuffer;
  readonly #forward: Forward;
  readonly #flush: Flush | undefined;
  readonly #pixels: boolean;
  readonly #zrle = new ZrleDecoder();
  readonly #tight: TightDecoder;
  /** Resolves with the first failure found while an update decoded behind the reading. */
  readonly decodeFailed: Promise<Error>;
  #reportFailure!: (error: Error) => void;
  #failure: Error | undefined;
  /** The updates read but still decoding: resolves once the last has ended. Never rejects. */
  #decoding: Promise<void> = Promise.resolve();

  constructor(
    input: ByteInput,
    framebuffer: Framebuffer,
    forward: Forward,
    options: ServerMessageReaderOptions = {},
  ) {
    this.#input = input;
    this.#framebuffer = framebuffer;
    this.#forward = forward;
    this.#flush = options.flush;
    this.#pixels = options.pixels ?? true;
    this.#tight = new TightDecoder({ decode: this.#pixels });
    this.decodeFailed = new Promise((resolve) => (this.#reportFailure = resolve));
    // A deferred paint (Tight's JPEG) found broken when the copy is read fails the session.
    framebuffer.onPaintFailure((error) => this.#fail(error));
  }

  async next(): Promise<ServerMessage> {
    if (this.#failure) throw this.#failure;
    const input = this.#input;
    await input.need(1);
    const type = input.peekU8();
    switch (type) {
      case serverMessageType.framebufferUpdate:
        return this.#update();
      case serverMessageType.setColourMapEntries: {
        const header = await input.read(6);
        const colours = await input.read(header.readUInt16BE(4) * 6);
        return { type: 'colour-map', wire: Buffer.concat([header, colours]) };
      }
      case serverMessageType.bell:
        return { type: 'bell', wire: await input.read(1) };
      case serverMessageType.serverCutText:
        return readCutText(input, 'ServerCutText');
      case serverMessageType.endOfContinuousUpdates:
        return { type: 'end-of-continuous-updates', wire: await input.read(1) };
      case serverMessageType.fence:
        return readFence(input);
      default:
        throw new RfbProtocolError(`a server message of unknown type ${type}`);
    }
  }

  /** Ends the connection's zlib streams. */
  close(): void {
    this.#zrle.close();
    this.#tight.close();
  }

  async #update(): Promise<ServerMessage> {
    const header = await this.#input.read(4);
    await this.#forward(header);
    const count = header.readUInt16BE(2);
    const painted: Rect[] = [];
    const encodings: number[] = [];
    let resizable = false;
    for (let i = 0; i < count; i++) {
      const rectHeader = await this.#input.read(12);
      await this.#forward(rectHeader);
      const rect: Rect = {
        x: rectHeader.readUInt16BE(0),
        y: rectHeader.readUInt16BE(2),
        width: rectHeader.readUInt16BE(4),
        height: rectHeader.readUInt16BE(6),
      };
      const kind = rectHeader.readInt32BE(8);
      encodings.push(kind);
      if (kind === encoding.lastRect) break;
      if (kind === encoding.extendedDesktopSize) resizable = true;
      if (await this.#rect(rect, kind)) painted.push(rect);
    }
    await this.#flush?.();
    this.#endBehind(painted);
    return { type: 'update', rects: painted, resizable, encodings };
  }

  /** Ends the update once its tiles and Tight data are in, after the updates before it. */
  #endBehind(painted: Rect[]): void {
    const decoded = [this.#zrle.settled(), this.#tight.settled()];
    // A listener that throws fails the session as a broken stream does, never the process.
    this.#decoding = Promise.all([this.#decoding, ...decoded])
      .then(() => this.#framebuffer.endUpdate(painted))
      .catch((error: Error) => this.#fail(error));
  }

  #fail(error: Error): void {
    this.#failure ??= error;
    this.#reportFailure(this.#failure);
  }

  /**
   * Waits for every tile, Tight rectangle and update before a change that is neither ZRLE nor
   * Tight (it may read them). ZRLE waits for Tight and Tight for ZRLE, so the copy takes the
   * rectangles in their order; a desktop uses one of the two, so neither waits in practice.
   */
  async #caughtUp(): Promise<void> {
    await this.#zrle.settled();
    await this.#tight.settled();
    await this.#decoding;
    if (this.#failure) throw this.#failure;
  }

  /** Reads (and forwards) one rectangle's payload; true when it painted pixels. */
  async #rect(rect: Rect, kind: number): Promise<boolean> {
    const framebuffer = this.#framebuffer;
    switch (kind) {
      case encoding.raw: {
        framebuffer.checkInside(rect, 'a Raw rectangle');
        if (!this.#pixels) {
          await this.#stream(rect.width * rect.height * 4);
          return rect.width > 0 && rect.height > 0;
        }
        const writer = new RawRectWriter(rect, framebuffer);
        await this.#caughtUp();
        await this.#stream(writer.length, (piece) => writer.write(piece));
        return rect.width > 0 && rect.height > 0;
      }
      case encoding.copyRect: {
        framebuffer.checkInside(rect, 'a CopyRect rectangle');
        const source = await this.#input.read(4);
        await this.#forward(source);
        const [fromX, fromY] = [source.readUInt16BE(0), source.readUInt16BE(2)];
        framebuffer.checkInside({ ...rect, x: fromX, y: fromY }, 'a CopyRect source');
        if (!this.#pixels) return rect.width > 0 && rect.height > 0;
        await this.#caughtUp();
        framebuffer.copy(rect, fromX, fromY);
        return rect.width > 0 && rect.height > 0;
      }
      case encoding.tight:
        framebuffer.checkInside(rect, 'a Tight rectangle');
        if (this.#pixels) await this.#zrle.settled();
        await this.#tight.readRect(rect, framebuffer, this.#input, this.#forward);
        return rect.width > 0 && rect.height > 0;
      case encoding.zrle:
        framebuffer.checkInside(rect, 'a ZRLE rectangle');
        if (this.#pixels) await this.#tight.settled();
        if (this.#pixels) {
          await this.#zrle.streamRect(rect, framebuffer, this.#input, this.#forward);
        } else {
          const header = await this.#input.read(4);
          await this.#forward(header);
          await this.#stream(
            checkedLength(header.readUInt32BE(0), rfbLimits.zrleBytes, 'ZRLE data'),
          );
        }
        return rect.width > 0 && rect.height > 0;
      case encoding.desktopSize:
        await this.#caughtUp();
        framebuffer.resize(rect.width, rect.height);
        return false;
      case encoding.extendedDesktopSize: {
        // x is why (0 the desktop, 1 this client asked, 2 another client), y the answer to a
        // request (0 done). Like noVNC, keep the size unless this client's request failed.
        const layout = await this.#input.read(4);
        await this.#forward(layout);
        await this.#forward(await this.#input.read(layout[0]! * screenBytes));
        await this.#caughtUp();
        if (!(rect.x === 1 && rect.y !== 0)) framebuffer.resize(rect.width, rect.height);
        return false;
      }
      case encoding.cursor: {
        // The cursor's pixels (4 bytes each in the proxy's format), then a 1-bit mask whose
        // rows are byte-aligned. Relayed as is: the cursor is not part of the screen.
        const side = Math.max(rect.width, rect.height);
        if (side > rfbLimits.cursorSide) {
          throw new RfbProtocolError(`a cursor of ${rect.width}×${rect.height}, over the limit`);
        }
        const mask = Math.ceil(rect.width / 8) * rect.height;
        await this.#stream(rect.width * rect.height * 4 + mask);
        return false;
      }
      default:
        throw new RfbProtocolError(`a rectangle in encoding ${kind}, which was not asked for`);
    }
  }

  /** Forwards `length` bytes as they come, handing each piece to `use` first. */
  async #stream(length: number, use?: (piece: Buffer) => void): Promise<void> {
    let left = length;
    while (left > 0) {
      const piece = await this.#input.readUpTo(left);
      left -= piece.length;
      use?.(piece);
      await this.#forward(piece);
    }
  }
}

/** The first 4 bytes of a FramebufferUpdate. */
export function encodeUpdateHeader(rectangles: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes[0] = serverMessageType.framebufferUpdate;
  bytes.writeUInt16BE(rectangles, 2);
  return bytes;
}

/** A rectangle's 12-byte header; its payload follows. */
export function encodeRectHeader(rect: Rect, kind: number): Buffer {
  const bytes = Buffer.alloc(12);
  bytes.writeUInt16BE(rect.x, 0);
  bytes.writeUInt16BE(rect.y, 2);
  bytes.writeUInt16BE(rect.width, 4);
  bytes.writeUInt16BE(rect.height, 6);
  bytes.writeInt32BE(kind, 8);
  return bytes;
}
