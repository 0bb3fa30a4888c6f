/**
 * Where output is cut into cast lines. This runs on the encoder's worker thread, which gets its
 * source text (cast-encoder.ts): it uses nothing from outside its own body.
 */

/**
 * How many bytes at the end of `bytes` begin a UTF-8 character that the next output completes
 * (0 to 3). Those are held back, so a character split between two reads of the SSH channel is
 * recorded whole, not as two replacement characters.
 */
export function incompleteUtf8Tail(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= 3 && back <= n; back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need =
      b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 0;
    return need > back ? back : 0;
  }
  return 0;
}
