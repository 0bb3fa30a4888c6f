import { z } from 'zod';
import type { TerminalSize } from './protocol.js';

// remotecommand.TerminalSize as JSON; the kubelet reads uint16s.
const sizeSchema = z.object({
  Width: z.number().int().min(0).max(65535),
  Height: z.number().int().min(0).max(65535),
});

/** A resize message: one JSON object, newline-terminated as Go's json.Encoder writes it. */
export function encodeResize(size: TerminalSize): Buffer {
  return Buffer.from(`${JSON.stringify({ Width: size.width, Height: size.height })}\n`);
}

/** The most bytes a resize object may take before the decoder gives up on the stream. */
const maxPendingBytes = 4096;

/**
 * Reads the resize channel: a sequence of JSON objects that may arrive split or joined in any
 * way (a SPDY stream is bytes). Objects that are not a size are skipped, not fatal.
 */
export class ResizeDecoder {
  #pending = '';

  push(chunk: Buffer | string): TerminalSize[] {
    this.#pending += chunk.toString();
    const sizes: TerminalSize[] = [];
    for (;;) {
      const end = objectEnd(this.#pending);
      if (end < 0) break;
      const text = this.#pending.slice(0, end);
      this.#pending = this.#pending.slice(end);
      const size = parseSize(text);
      if (size) sizes.push(size);
    }
    if (this.#pending.length > maxPendingBytes) this.#pending = '';
    return sizes;
  }
}

function parseSize(text: string): TerminalSize | undefined {
  try {
    const parsed = sizeSchema.safeParse(JSON.parse(text));
    return parsed.success ? { width: parsed.data.Width, height: parsed.data.Height } : undefined;
  } catch {
    return undefined;
  }
}

/** Where the first top-level JSON object of `text` ends, or -1 when it is not complete. */
function objectEnd(text: string): number {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (inString) {
      if (char === '\\') at++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{') {
      depth++;
    } else if (char === '}') {
      depth--;
      if (depth === 0) return at + 1;
      if (depth < 0) return at + 1; // A stray brace: cut it off with what came before.
    }
  }
  return -1;
}
