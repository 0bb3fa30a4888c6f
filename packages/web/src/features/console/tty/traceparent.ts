/**
 * A W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/): version 00, a random
 * 16-byte trace id, a random 8-byte parent (span) id, flags 01 (sampled). The terminal socket
 * sends it in its query so the proxy's logs of one session can be tied to the browser tab.
 * Uses Web Crypto, which browsers and Node 20 both have as `globalThis.crypto`.
 */
export function createTraceparent(random: (bytes: Uint8Array) => void = fillRandom): string {
  return `00-${randomHex(16, random)}-${randomHex(8, random)}-01`;
}

function fillRandom(bytes: Uint8Array): void {
  globalThis.crypto.getRandomValues(bytes);
}

/** Hex of `length` random bytes; all zeroes is not a valid id, so it draws again. */
function randomHex(length: number, random: (bytes: Uint8Array) => void): string {
  const bytes = new Uint8Array(length);
  for (let attempt = 0; attempt < 8; attempt++) {
    random(bytes);
    if (bytes.some((b) => b !== 0)) break;
  }
  if (bytes.every((b) => b === 0)) bytes[length - 1] = 1;
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

const traceparentPattern = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

export function isTraceparent(value: string): boolean {
  return traceparentPattern.test(value) && !/^00-0{32}-/.test(value) && !/-0{16}-/.test(value);
}
