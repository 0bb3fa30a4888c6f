import type { Duplex } from 'node:stream';
import type { ByteInput } from './byte-input.js';
import type { ByteOutput } from './byte-output.js';
import { encodeSetEncodings, readClientMessage } from './client-messages.js';
import type { Framebuffer } from './framebuffer.js';
import { describePixelFormat, proxyPixelFormat, sameLayoutAsProxy } from './pixel-format.js';
import { relayedEncodingsOf } from './relayed-encodings.js';
import { PeerGoneError, RfbProtocolError } from './rfb-errors.js';
import { ServerMessageReader } from './server-messages.js';

export interface RelayEnds {
  browser: Duplex;
  desktop: Duplex;
  browserIn: ByteInput;
  browserOut: ByteOutput;
  desktopIn: ByteInput;
  desktopOut: ByteOutput;
}

export interface RelayPolicy {
  clipboard: { toDesktop: boolean; fromDesktop: boolean };
  /** Keep the framebuffer's pixels current (default true); see ServerMessageReaderOptions. */
  pixels?: boolean;
  onClipboard?(direction: 'to-desktop' | 'from-desktop', bytes: number, allowed: boolean): void;
}

export interface RelayEnd {
  reason: string;
  error: boolean;
}

/** How long an ended stream may take to flush before it is destroyed. */
const endGraceMs = 2_000;

/**
 * A relay past both handshakes: two loops, one per direction, each reading a whole message (or,
 * for screen updates, piece by piece) before it writes on, and waiting while the other side
 * drains. A loop that fails ends the session; whatever failed is turned into the reason, and
 * never reaches the event loop.
 */
export class RelaySession {
  readonly closed: Promise<RelayEnd>;
  readonly #ends: RelayEnds;
  readonly #policy: RelayPolicy;
  readonly #updates: ServerMessageReader;
  #resolveClosed!: (end: RelayEnd) => void;
  #ended = false;
  /** The desktop sent ExtendedDesktopSize: it takes SetDesktopSize (rfbproto §7.5.8). */
  #resizable = false;

  constructor(ends: RelayEnds, framebuffer: Framebuffer, policy: RelayPolicy) {
    this.#ends = ends;
    this.#policy = policy;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.#updates = new ServerMessageReader(
      ends.desktopIn,
      framebuffer,
      (bytes) => ends.browserOut.write(bytes),
      { flush: () => ends.browserOut.flush(), pixels: policy.pixels },
    );
    this.#desktopToBrowser().catch((error: unknown) => this.#failed(error, 'the desktop'));
    void this.#updates.decodeFailed.then((error) => this.#failed(error, 'the desktop'));
    this.#browserToDesktop().catch((error: unknown) => this.#failed(error, 'the browser'));
  }

  /** Ends both sides, letting what was written flush first. */
  close(reason: string): void {
    this.#end({ reason, error: false });
  }

  async #desktopToBrowser(): Promise<never> {
    const out = this.#ends.browserOut;
    for (;;) {
      const message = await this.#updates.next();
      if (message.type === 'update') {
        if (message.resizable) this.#resizable = true;
      } else if (message.type === 'cut-text') {
        const allowed = this.#policy.clipboard.fromDesktop && message.wire !== undefined;
        this.#policy.onClipboard?.('from-desktop', message.length, allowed);
        if (allowed) await out.write(message.wire!);
      } else {
        await out.write(message.wire);
      }
      await out.flush();
    }
  }

  async #browserToDesktop(): Promise<never> {
    const out = this.#ends.desktopOut;
    for (;;) {
      const message = await readClientMessage(this.#ends.browserIn);
      switch (message.type) {
        case 'set-pixel-format':
          // The desktop already sends the proxy's format, which is this one laid out in memory.
          if (!sameLayoutAsProxy(message.format)) {
            throw new RfbProtocolError(
              `a pixel format of ${describePixelFormat(message.format)}; the proxy relays only ${describePixelFormat(proxyPixelFormat)}`,
            );
          }
          break;
        case 'set-encodings':
          await out.write(encodeSetEncodings(relayedEncodingsOf(message.encodings)));
          break;
        case 'cut-text': {
          const allowed = this.#policy.clipboard.toDesktop && message.wire !== undefined;
          this.#policy.onClipboard?.('to-desktop', message.length, allowed);
          if (allowed) await out.write(message.wire!);
          break;
        }
        case 'set-desktop-size':
          // A browser may ask only once the desktop said it can (noVNC waits for that too).
          if (this.#resizable) await out.write(message.wire);
          break;
        default:
          await out.write(message.wire);
      }
      await out.flush();
    }
  }

  #failed(error: unknown, peer: 'the desktop' | 'the browser'): void {
    if (this.#ended) return;
    if (error instanceof RfbProtocolError) {
      this.#end({ reason: `protocol error: ${peer} sent ${error.message}`, error: true });
    } else if (error instanceof PeerGoneError) {
      this.#end({ reason: error.message, error: error.failure !== undefined });
    } else {
      const message = error instanceof Error ? error.message : String(error);
      this.#end({ reason: `the relay failed: ${message}`, error: true });
    }
  }

  #end(end: RelayEnd): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#updates.close();
    for (const stream of [this.#ends.browser, this.#ends.desktop]) {
      if (end.error) {
        stream.destroy();
        continue;
      }
      stream.end();
      const timer = setTimeout(() => stream.destroy(), endGraceMs);
      timer.unref();
      stream.once('close', () => clearTimeout(timer));
    }
    this.#resolveClosed(end);
  }
}
