import { createHmac } from 'node:crypto';

/** RFC 4648 base32, as authenticator apps take TOTP secrets. */
function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const bytes: number[] = [];
  for (const char of text.replace(/[\s=]/g, '').toUpperCase()) {
    const index = alphabet.indexOf(char);
    if (index < 0) throw new Error(`not base32: ${char}`);
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

/**
 * The code an authenticator app shows (RFC 6238: SHA-1, 6 digits, 30 s steps), written out here
 * so the tests act as an independent authenticator rather than reusing the server's code.
 */
export function totpCode(secret: string, time = Date.now(), stepOffset = 0): string {
  const step = Math.floor(time / 30_000) + stepOffset;
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const digest = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  const binary = digest.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
}

const stepMs = 30_000;
/** The latest step `nextStepCode` handed out per secret, in this worker. */
const handedOut = new Map<string, number>();

/**
 * A code the server has not taken yet. Codes are single-use per 30 s step, and the server takes
 * a code up to one step ahead of its clock (its drift window). So after a login with the current
 * step's code (`totpCode`), the next step's code works at once; only a third login in the same
 * step waits for the clock to move on.
 */
export async function nextStepCode(secret: string): Promise<string> {
  const current = Math.floor(Date.now() / stepMs);
  const wanted = Math.max(current + 1, (handedOut.get(secret) ?? 0) + 1);
  handedOut.set(secret, wanted);
  // One step ahead of the clock at most: wait until the clock is a step behind `wanted`.
  const waitMs = (wanted - 1) * stepMs - Date.now();
  if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs + 200));
  return totpCode(secret, wanted * stepMs);
}
