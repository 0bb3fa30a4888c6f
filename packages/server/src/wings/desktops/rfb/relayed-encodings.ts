import { encoding } from './protocol.js';

/**
 * The encodings the proxy can read, hence all a browser may ask a desktop for: Raw, CopyRect,
 * Tight (with JPEG, and the quality and compression levels that tune it) and ZRLE, and the
 * pseudo-encodings whose rectangles have a size the proxy can tell (DesktopSize and LastRect
 * carry nothing, ExtendedDesktopSize a counted screen list, Cursor pixels and a mask).
 * Fence and ContinuousUpdates bring no rectangles, only messages the proxy reads and relays: with
 * them the desktop sends updates as the screen changes instead of one per request, which is most
 * of the frame rate a bare relay gets on a busy screen (docs/desktops.md, Encodings). Tight with
 * JPEG is the rest of it: the desktop encodes a busy screen faster, and the browser draws it
 * faster, than ZRLE.
 * Everything else noVNC offers (TightPNG, Hextile, the JPEG encoding of QEMU, the QEMU key
 * events, Extended Clipboard, DesktopName…) is left out, so the desktop never uses it.
 */
const levels = (first: number) => Array.from({ length: 10 }, (_, level) => first + level);

const relayedEncodings: ReadonlySet<number> = new Set([
  encoding.raw,
  encoding.copyRect,
  encoding.tight,
  ...levels(encoding.qualityLevel0),
  ...levels(encoding.compressLevel0),
  encoding.zrle,
  encoding.desktopSize,
  encoding.extendedDesktopSize,
  encoding.lastRect,
  encoding.cursor,
  encoding.fence,
  encoding.continuousUpdates,
]);

/** The browser's list cut to what the proxy reads, in the browser's order, without repeats. */
export function relayedEncodingsOf(requested: number[]): number[] {
  return [...new Set(requested.filter((value) => relayedEncodings.has(value)))];
}
