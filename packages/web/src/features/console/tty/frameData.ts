import type { TerminalSize } from './TtyClient';

/** Binary frame data as bytes. Checked by tag, not instanceof: Node's `ws` may hand over an
 * ArrayBuffer of another realm (a test DOM, a worker). */
export function toBytes(data: unknown): Uint8Array | undefined {
  if (Object.prototype.toString.call(data) === '[object ArrayBuffer]') {
    return new Uint8Array(data as ArrayBuffer);
  }
  if (ArrayBuffer.isView(data))
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return undefined;
}

const textDecoder = new TextDecoder('utf-8');
export const text = (body: Uint8Array) => textDecoder.decode(body);

export function parseJson(body: Uint8Array): unknown {
  try {
    return JSON.parse(text(body));
  } catch {
    return undefined;
  }
}

/** The `c` payload: JSON `{"reason": "..."}`, or plain text; empty means 'session ended'. */
export function endReason(body: Uint8Array): string {
  const json = parseJson(body) as { reason?: unknown } | undefined;
  if (json && typeof json === 'object' && typeof json.reason === 'string' && json.reason.trim()) {
    return json.reason.trim();
  }
  const plain = text(body).trim();
  return plain && !plain.startsWith('{') ? plain : 'session ended';
}

export function sizeText(size: TerminalSize): string {
  return `${size.w}:${size.h}`;
}

/** "W:H" → size, or undefined when it is not two positive integers below 4096. */
export function parseSize(value: string): TerminalSize | undefined {
  const match = /^(\d{1,4}):(\d{1,4})$/.exec(value.trim());
  if (!match) return undefined;
  const size = { w: Number(match[1]), h: Number(match[2]) };
  return validSize(size) ? size : undefined;
}

export function validSize(size: TerminalSize): boolean {
  const ok = (n: number) => Number.isInteger(n) && n > 0 && n < 4096;
  return ok(size.w) && ok(size.h);
}

/** The line a terminal shows when a party joins or leaves (`a` events), if the event is one. */
export function partyNotice(event: Record<string, unknown>): string | undefined {
  const user = typeof event.user === 'string' && event.user ? event.user : 'someone';
  if (event.event === 'session.leave') return `[${user} left]`;
  // The session waits for a party whose connection dropped (docs/protocol.md §6.1).
  if (event.event === 'session.connection_lost') return `[${user} lost the connection]`;
  if (event.event === 'session.resumed') return `[${user} is back]`;
  // The proxy is still reaching the server (docs/protocol.md §4.4): say so over a blank screen.
  if (event.event === 'session.starting') return '[still connecting to the server…]';
  if (event.event !== 'session.join') return undefined;
  const mode = typeof event.mode === 'string' && event.mode ? ` as ${event.mode}` : '';
  return `[${user} joined${mode}]`;
}
