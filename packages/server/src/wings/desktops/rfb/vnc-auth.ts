import { desEncryptBlock } from './des.js';

export const vncChallengeBytes = 16;

/**
 * The answer to a VNC Authentication challenge (RFC 6143 §7.2.2): the 16 challenge bytes
 * encrypted as two DES blocks under a key made of the password's first 8 bytes (shorter ones
 * padded with zeros, longer ones cut: VNC passwords are 8 bytes at most, whatever was typed).
 * Every key byte has its bits in reverse order: the original VNC code handed DES its key that
 * way, and RFB kept the quirk as the standard.
 */
export function vncAuthResponse(password: string, challenge: Buffer): Buffer {
  if (challenge.length !== vncChallengeBytes) throw new RangeError('a VNC challenge is 16 bytes');
  const key = Buffer.alloc(8);
  Buffer.from(password, 'utf8').copy(key, 0, 0, 8);
  for (let i = 0; i < 8; i++) key[i] = reverseBits(key[i]!);
  return Buffer.concat([
    desEncryptBlock(key, challenge.subarray(0, 8)),
    desEncryptBlock(key, challenge.subarray(8, 16)),
  ]);
}

function reverseBits(byte: number): number {
  let reversed = 0;
  for (let bit = 0; bit < 8; bit++) reversed |= ((byte >> bit) & 1) << (7 - bit);
  return reversed;
}
