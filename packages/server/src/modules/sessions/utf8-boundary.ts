/**
 * Terminal output travels as UTF-8 text frames (reference §2.2), but SSH hands us bytes cut
 * anywhere. This keeps an incomplete trailing character back for the next chunk, so no frame
 * ever ends in the middle of one (clients that decode each frame alone would show U+FFFD).
 */
export class Utf8Boundary {
  private carry: Buffer | undefined;

  push(chunk: Buffer): Buffer {
    const data = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = undefined;
    const cut = completeLength(data);
    if (cut === data.length) return data;
    this.carry = Buffer.from(data.subarray(cut));
    return data.subarray(0, cut);
  }

  /** What is held back, at the end of the stream. */
  flush(): Buffer {
    const rest = this.carry ?? Buffer.alloc(0);
    this.carry = undefined;
    return rest;
  }
}

/** Length of the prefix that ends on a character boundary (invalid bytes count as complete). */
export function completeLength(data: Uint8Array): number {
  const n = data.length;
  // A character is at most 4 bytes: look at most 3 bytes back for a lead byte.
  for (let back = 1; back <= Math.min(3, n); back++) {
    const byte = data[n - back]!;
    if ((byte & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const need = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return need > back ? n - back : n;
  }
  return n;
}
