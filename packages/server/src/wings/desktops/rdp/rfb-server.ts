import type { Duplex } from 'node:stream';
import { ByteInput } from '../rfb/byte-input.js';
import { ByteOutput } from '../rfb/byte-output.js';
import { readClientMessage } from '../rfb/client-messages.js';
import type { Framebuffer, Rect } from '../rfb/framebuffer.js';
import { handshakeAsServer } from '../rfb/handshake-as-server.js';
import { proxyPixelFormat, type PixelFormat } from '../rfb/pixel-format.js';
import { encoding, serverMessageType } from '../rfb/protocol.js';
import { PeerGoneError, RfbProtocolError } from '../rfb/rfb-errors.js';
import { encodeRectHeader, encodeUpdateHeader } from '../rfb/server-messages.js';

export interface RfbServerOptions {
  browser: Duplex;
  /** The screen to serve, kept current by whoever decodes the desktop (the RDP client). */
  framebuffer: Framebuffer;
  name: string;
  onKey(keysym: number, down: boolean): void;
  onPointer(buttons: number, x: number, y: number): void;
  /** Text the browser copied (ClientCutText, Latin-1 as RFB has it). */
  onCutText?(text: string): void;
}

/** More damaged rectangles than this are sent as their bounding box. */
const maxRectsPerUpdate = 32;

/**
 * An RFB server for noVNC in front of a screen the proxy decodes itself (an RDP desktop's), so
 * the browser speaks VNC to every desktop. It answers the handshake with security None (the user
 * signed in to Postern already), then sends the damaged parts of the framebuffer as Raw
 * rectangles whenever noVNC asks for an update, and hands keys and pointer events on. Resolves
 * `closed` with why the browser's side ended.
 */
export async function serveRfb(options: RfbServerOptions) {
  const { browser, framebuffer } = options;
  const input = new ByteInput(browser, 'the browser');
  const output = new ByteOutput(browser, 'the browser');
  await handshakeAsServer(input, output, {
    width: framebuffer.width,
    height: framebuffer.height,
    pixelFormat: proxyPixelFormat,
    name: options.name,
  });

  let damage: Rect[] = [];
  let requested = false;
  let sending = false;
  // Messages to the browser go out whole and in turn: an update and a clipboard text never mix.
  let outgoing: Promise<void> = Promise.resolve();
  const queue = (write: () => Promise<void>) => (outgoing = outgoing.then(write));
  const send = async () => {
    if (sending || !requested || damage.length === 0) return;
    sending = true;
    requested = false;
    const rects = damage.length > maxRectsPerUpdate ? [boundingBox(damage)] : damage;
    damage = [];
    try {
      await queue(async () => {
        await output.write(encodeUpdateHeader(rects.length));
        for (const rect of rects) {
          await output.write(encodeRectHeader(rect, encoding.raw));
          await output.write(rawPixels(framebuffer, rect));
        }
        await output.flush();
      });
    } finally {
      sending = false;
    }
    await send();
  };
  const failed = (error: unknown) => browser.destroy(error instanceof Error ? error : undefined);
  const stopUpdates = framebuffer.onUpdate((rects) => {
    damage.push(...rects);
    send().catch(failed);
  });
  const whole = () => ({ x: 0, y: 0, width: framebuffer.width, height: framebuffer.height });

  const closed = (async () => {
    try {
      for (;;) {
        const message = await readClientMessage(input);
        if (message.type === 'set-pixel-format') {
          if (!samePixelFormat(message.format, proxyPixelFormat)) {
            throw new RfbProtocolError('a pixel format other than 32-bit RGB');
          }
        } else if (message.type === 'update-request') {
          if (!message.incremental) damage.push(whole());
          requested = true;
          await send();
        } else if (message.type === 'key') {
          options.onKey(message.keysym, message.down);
        } else if (message.type === 'pointer') {
          options.onPointer(message.buttons, message.x, message.y);
        } else if (message.type === 'cut-text' && message.wire) {
          options.onCutText?.(message.wire.subarray(8).toString('latin1'));
        }
        // SetEncodings: Raw is always understood; clipboard and resizes are not offered.
      }
    } catch (error) {
      if (error instanceof PeerGoneError && !error.failure) return 'the browser disconnected';
      if (error instanceof RfbProtocolError)
        return `protocol error: the browser sent ${error.message}`;
      return error instanceof Error ? error.message : String(error);
    } finally {
      stopUpdates();
    }
  })();
  /** Puts `text` on the browser's clipboard (ServerCutText, Latin-1 as RFB has it). */
  const sendCutText = (text: string) => {
    const bytes = Buffer.from(text, 'latin1');
    const header = Buffer.from([serverMessageType.serverCutText, 0, 0, 0, 0, 0, 0, 0]);
    header.writeUInt32BE(bytes.length, 4);
    queue(async () => {
      await output.write(Buffer.concat([header, bytes]));
      await output.flush();
    }).catch(failed);
  };
  return { closed, sendCutText };
}

function rawPixels(framebuffer: Framebuffer, rect: Rect): Buffer {
  const pixels = framebuffer.pixels();
  const stride = framebuffer.width * 4;
  const out = Buffer.allocUnsafe(rect.width * rect.height * 4);
  for (let row = 0; row < rect.height; row++) {
    const from = (rect.y + row) * stride + rect.x * 4;
    out.set(pixels.subarray(from, from + rect.width * 4), row * rect.width * 4);
  }
  return out;
}

function boundingBox(rects: Rect[]): Rect {
  const x = Math.min(...rects.map((r) => r.x));
  const y = Math.min(...rects.map((r) => r.y));
  const right = Math.max(...rects.map((r) => r.x + r.width));
  const bottom = Math.max(...rects.map((r) => r.y + r.height));
  return { x, y, width: right - x, height: bottom - y };
}

function samePixelFormat(a: PixelFormat, b: PixelFormat): boolean {
  return (Object.keys(b) as (keyof PixelFormat)[]).every((key) => a[key] === b[key]);
}
