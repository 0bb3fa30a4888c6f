import { PassThrough, type Duplex } from 'node:stream';
import { ByteInput } from './byte-input.js';
import { ByteOutput } from './byte-output.js';
import {
  encodeCutText,
  encodeEnableContinuousUpdates,
  encodeKeyEvent,
  encodePointerEvent,
  encodeSetDesktopSize,
  encodeSetEncodings,
  encodeSetPixelFormat,
  encodeUpdateRequest,
} from './client-messages.js';
import { encodeFence, fenceFlag } from './fence.js';
import { Framebuffer } from './framebuffer.js';
import { handshakeAsClient, type ClientHandshake } from './handshake-as-client.js';
import { proxyPixelFormat } from './pixel-format.js';
import { PeerGoneError } from './rfb-errors.js';
import { ServerMessageReader } from './server-messages.js';
import { until } from './rfb.testkit.js';

/**
 * What noVNC 1.4 lists in SetEncodings at its defaults (CopyRect, Tight, TightPNG, ZRLE, JPEG,
 * Hextile, Raw, then pseudo-encodings: quality and compression levels, DesktopSize, LastRect,
 * QEMU keys, ExtendedDesktopSize, XVP, Fence, ContinuousUpdates, DesktopName, Extended
 * Clipboard, Cursor…): most of them are ones the proxy must drop.
 */
export const noVncEncodings = [
  1,
  7,
  -260,
  16,
  21,
  5,
  0,
  -26,
  -258,
  -223,
  -224,
  -258,
  -308,
  -309,
  -312,
  -313,
  -307,
  0xc0a1e5ce | 0,
  -239,
  0x574d5664,
];

/**
 * A small RFB client that behaves like noVNC towards the proxy: 3.8, security None, a shared
 * ClientInit, noVNC's pixel format, its encodings, a full update request and then an
 * incremental one after every update, until the desktop says it takes ContinuousUpdates: then
 * it enables them for the whole screen and asks no more. It answers the desktop's fence
 * requests as noVNC does. It decodes what it receives into its own framebuffer and keeps every
 * byte, so tests can look for what must never reach a browser.
 */
export class TestRfbClient {
  readonly framebuffer: Framebuffer;
  readonly handshake: ClientHandshake;
  /** Every byte received, handshake included. */
  readonly received: Buffer[];
  readonly cutTexts: Buffer[] = [];
  bells = 0;
  updates = 0;
  /** Updates that came after the last FramebufferUpdateRequest had been answered. */
  unaskedUpdates = 0;
  /** Fence requests the desktop sent (and this client answered). */
  fences = 0;
  /** The client turned ContinuousUpdates on, the desktop having offered them. */
  continuousUpdates = false;
  /** Every encoding the server used, pseudo-encodings too. */
  readonly encodingsSeen = new Set<number>();
  /** The server sent ExtendedDesktopSize. */
  resizable = false;
  /** Resolves with the reason the connection ended (an Error), or undefined on a clean end. */
  readonly ended: Promise<Error | undefined>;
  readonly #stream: Duplex;
  readonly #out: ByteOutput;
  readonly #hold: { held: boolean };
  /** A FramebufferUpdateRequest is out and not answered yet. */
  #asked = false;

  static async connect(stream: Duplex, encodings = noVncEncodings): Promise<TestRfbClient> {
    const received: Buffer[] = [];
    // Reads go through `feed`, so pauseReading can hold the socket whatever the reader does.
    const feed = new PassThrough();
    const hold = { held: false };
    stream.on('data', (chunk: Buffer) => {
      received.push(chunk);
      if (!feed.write(chunk) || hold.held) stream.pause();
    });
    feed.on('drain', () => hold.held || stream.resume());
    stream.once('end', () => feed.end());
    stream.once('close', () => feed.destroy());
    stream.on('error', () => undefined);
    const input = new ByteInput(feed, 'the proxy');
    const out = new ByteOutput(stream, 'the proxy');
    const handshake = await handshakeAsClient(input, out, { shared: true });
    return new TestRfbClient(stream, hold, input, out, handshake, received, encodings);
  }

  private constructor(
    stream: Duplex,
    hold: { held: boolean },
    input: ByteInput,
    out: ByteOutput,
    handshake: ClientHandshake,
    received: Buffer[],
    encodings: number[],
  ) {
    this.#stream = stream;
    this.#hold = hold;
    this.#out = out;
    this.handshake = handshake;
    this.received = received;
    const { width, height } = handshake.serverInit;
    this.framebuffer = new Framebuffer(width, height);
    this.send(encodeSetPixelFormat(proxyPixelFormat));
    this.send(encodeSetEncodings(encodings));
    this.#ask(false);
    this.framebuffer.onResize(() => this.continuousUpdates && this.#enableContinuousUpdates());
    const reader = new ServerMessageReader(input, this.framebuffer, () => undefined);
    this.ended = this.#read(reader).catch((error: Error) =>
      error instanceof PeerGoneError && !error.failure ? undefined : error,
    );
  }

  async #read(reader: ServerMessageReader): Promise<undefined> {
    for (;;) {
      const message = await reader.next();
      if (message.type === 'update') {
        this.updates++;
        if (this.#asked) this.#asked = false;
        else this.unaskedUpdates++;
        for (const kind of message.encodings) this.encodingsSeen.add(kind);
        if (message.resizable) this.resizable = true;
        if (!this.continuousUpdates) this.#ask(true);
      } else if (message.type === 'fence') {
        this.fences++;
        const flags = message.flags & (fenceFlag.blockBefore | fenceFlag.blockAfter);
        this.send(encodeFence(flags, message.payload));
      } else if (message.type === 'end-of-continuous-updates') {
        if (!this.continuousUpdates) {
          this.continuousUpdates = true;
          this.#enableContinuousUpdates();
        }
      } else if (message.type === 'bell') {
        this.bells++;
      } else if (message.type === 'cut-text' && message.wire) {
        this.cutTexts.push(message.wire.subarray(8));
      }
    }
  }

  /** For the whole screen, again after each resize (as noVNC does). */
  #enableContinuousUpdates(): void {
    const { width, height } = this.framebuffer;
    this.send(encodeEnableContinuousUpdates(true, { x: 0, y: 0, width, height }));
  }

  #ask(incremental: boolean): void {
    this.#asked = true;
    const { width, height } = this.framebuffer;
    this.send(encodeUpdateRequest(incremental, { x: 0, y: 0, width, height }));
  }

  /** Sends `bytes`; a connection already gone shows in `ended`, not as a rejection here. */
  send(bytes: Buffer): void {
    this.#out.write(bytes)?.catch(() => undefined);
    this.#out.flush()?.catch(() => undefined);
  }

  key(keysym: number, down: boolean): void {
    this.send(encodeKeyEvent(down, keysym));
  }

  /** Presses and releases a key per character (Latin-1 keysyms are the character codes). */
  type(text: string): void {
    for (const char of text) {
      const keysym = char === '\n' ? 0xff0d : char.charCodeAt(0);
      this.key(keysym, true);
      this.key(keysym, false);
    }
  }

  pointer(x: number, y: number, buttons = 0): void {
    this.send(encodePointerEvent(buttons, x, y));
  }

  cutText(text: string): void {
    this.send(encodeCutText(Buffer.from(text, 'latin1')));
  }

  setDesktopSize(width: number, height: number): void {
    this.send(
      encodeSetDesktopSize(width, height, [{ id: 0, x: 0, y: 0, width, height, flags: 0 }]),
    );
  }

  /** Stops reading, like a browser tab that cannot keep up. */
  pauseReading(): void {
    this.#hold.held = true;
    this.#stream.pause();
  }

  resumeReading(): void {
    this.#hold.held = false;
    this.#stream.resume();
  }

  /** Everything received so far, as one buffer. */
  bytes(): Buffer {
    return Buffer.concat(this.received);
  }

  until(check: () => boolean, what: string, limitMs?: number): Promise<void> {
    return until(check, what, limitMs);
  }

  close(): void {
    this.#stream.destroy();
  }
}
