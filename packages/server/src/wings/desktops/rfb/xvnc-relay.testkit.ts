import { connect } from 'node:net';
import type { RunningXvnc } from '../../../testing/xvnc.testkit.js';
import type { Framebuffer } from './framebuffer.js';
import type { ClipboardEvent } from './relay.testkit.js';
import { noVncEncodings, TestRfbClient } from './rfb-client.testkit.js';
import { socketPair } from './rfb.testkit.js';
import { startVncRelay, type VncRelayOptions, type VncSession } from './vnc-relay.js';

/** A relay from a test client (noVNC-like) to `xvnc` over loopback. */
export async function relayTo(
  xvnc: RunningXvnc,
  relay: Partial<VncRelayOptions> = {},
  encodings = noVncEncodings,
) {
  const desktop = connect(xvnc.port, xvnc.host);
  const browser = await socketPair();
  const clipboard: ClipboardEvent[] = [];
  const [session, client] = await Promise.all([
    startVncRelay({
      browser: browser.server,
      desktop,
      clipboard: { toDesktop: true, fromDesktop: true },
      onClipboard: (direction, bytes, allowed) => clipboard.push({ direction, bytes, allowed }),
      ...relay,
    }),
    TestRfbClient.connect(browser.client, encodings),
  ]);
  return { session, client, clipboard };
}

export const sameScreen = (a: Framebuffer | VncSession['framebuffer'], rgba: Uint8Array) =>
  Buffer.from(a.pixels()).equals(Buffer.from(rgba));

/** Every pixel of the screen is this colour. */
export function allOneColour(framebuffer: { pixels(): Uint8Array }, [r, g, b]: number[]): boolean {
  const pixels = framebuffer.pixels();
  for (let at = 0; at < pixels.length; at += 4) {
    if (pixels[at] !== r || pixels[at + 1] !== g || pixels[at + 2] !== b) return false;
  }
  return true;
}

/**
 * An image that makes TigerVNC's ZRLE use every kind of tile: noise (raw CPIXELs), runs of 40
 * colours (palette RLE), three colours in stripes (packed palette), runs of hundreds of colours
 * (plain RLE); the desktop around it is flat (solid).
 */
export function everyKindOfTile(width: number, height: number): Uint8Array {
  const image = new Uint8Array(width * height * 4);
  let seed = 7;
  const stripes = [
    [255, 0, 0],
    [0, 0, 255],
    [250, 250, 250],
  ];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      let colour: number[];
      if (y < 64) colour = [seed & 255, (seed >> 8) & 255, (seed >> 16) & 255];
      else if (y < 128) {
        const index = ((x >> 3) + (y >> 2)) % 40;
        colour = [index * 6, 255 - index * 6, (index * 37) % 256];
      } else if (y < 160) colour = stripes[(x >> 2) % 3]!;
      else colour = [(y * 6) % 256, (x >> 3) * 7, 90];
      image.set([...colour, 255], (y * width + x) * 4);
    }
  }
  return image;
}
