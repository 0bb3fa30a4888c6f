import { encoding } from './protocol.js';

/**
 * The encodings the proxy can read, hence all a browser may ask a desktop for: Raw, CopyRect and
 * ZRLE, and the pseudo-encodings whose rectangles have a size the proxy can tell (DesktopSize and
 * LastRect carry nothing, ExtendedDesktopSize a counted screen list, Cursor pixels and a mask).
 * Everything else noVNC offers (Tight, Hextile, JPEG, Fence, ContinuousUpdates, the QEMU key
 * events, Extended Clipboard, DesktopName…) is left out, so the desktop never uses it.
 */
const relayedEncodings: ReadonlySet<number> = new Set([
  encoding.raw,
  encoding.copyRect,
  encoding.zrle,
  encoding.desktopSize,
  encoding.extendedDesktopSize,
  encoding.lastRect,
  encoding.cursor,
]);

/** The browser's list cut to what the proxy reads, in the browser's order, without repeats. */
export function relayedEncodingsOf(requested: number[]): number[] {
  return [...new Set(requested.filter((value) => relayedEncodings.has(value)))];
}
