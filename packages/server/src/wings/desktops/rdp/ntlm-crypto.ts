import {
  createCipheriv,
  createHash,
  createHmac,
  getCiphers,
  getHashes,
  type Cipher,
} from 'node:crypto';

/**
 * The primitives NTLM (MS-NLMP 6) is built on. MD4 and RC4 are legacy algorithms that OpenSSL 3
 * keeps in its "legacy" provider, which Node 20 does not load: they are written here (RFC 1320,
 * and RC4 as published), and Node's own are used only when it has them.
 */

export const md5 = (...parts: Buffer[]) => createHash('md5').update(Buffer.concat(parts)).digest();

export const hmacMd5 = (key: Buffer, ...parts: Buffer[]) =>
  createHmac('md5', key).update(Buffer.concat(parts)).digest();

const nodeMd4 = getHashes().includes('md4');

/** MD4 (RFC 1320), which NTOWF takes of the password. */
export function md4(message: Buffer): Buffer {
  if (nodeMd4) return createHash('md4').update(message).digest();
  // Padding: a 1 bit, zeros to 56 bytes mod 64, then the length in bits (64-bit little-endian).
  const padded = Buffer.alloc((((message.length + 8) >> 6) + 1) * 64);
  message.copy(padded);
  padded[message.length] = 0x80;
  const bits = message.length * 8;
  padded.writeUInt32LE(bits >>> 0, padded.length - 8);
  padded.writeUInt32LE(Math.floor(bits / 2 ** 32), padded.length - 4);

  const state = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
  const x = new Array<number>(16);
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i++) x[i] = padded.readUInt32LE(block + i * 4);
    let [a, b, c, d] = state as [number, number, number, number];
    // Each round applies its function to the words in its order with its four shifts, the
    // registers rotating a, d, c, b so each step writes the next one back.
    for (const round of rounds) {
      for (let step = 0; step < 16; step++) {
        const k = round.order[step]!;
        const mixed = (a + round.f(b, c, d) + x[k]! + round.constant) | 0;
        const s = round.shifts[step & 3]!;
        [a, b, c, d] = [d, (mixed << s) | (mixed >>> (32 - s)), b, c];
      }
    }
    state[0] = (state[0]! + a) | 0;
    state[1] = (state[1]! + b) | 0;
    state[2] = (state[2]! + c) | 0;
    state[3] = (state[3]! + d) | 0;
  }
  const digest = Buffer.alloc(16);
  state.forEach((word, i) => digest.writeInt32LE(word, i * 4));
  return digest;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const rounds = [
  {
    f: (x: number, y: number, z: number) => (x & y) | (~x & z),
    order: range(16),
    shifts: [3, 7, 11, 19],
    constant: 0,
  },
  {
    f: (x: number, y: number, z: number) => (x & y) | (x & z) | (y & z),
    order: range(16).map((i) => (i % 4) * 4 + (i >> 2)),
    shifts: [3, 5, 9, 13],
    constant: 0x5a827999,
  },
  {
    f: (x: number, y: number, z: number) => x ^ y ^ z,
    order: [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15],
    shifts: [3, 9, 11, 15],
    constant: 0x6ed9eba1,
  },
];

const nodeRc4 = getCiphers().includes('rc4');

/**
 * RC4 as a stream: NTLM's sealing keeps one cipher state per direction for the whole connection
 * (3.4.3), so each call continues where the previous one stopped.
 */
export class Rc4 {
  readonly #node: Cipher | undefined;
  readonly #s = new Uint8Array(256);
  #i = 0;
  #j = 0;

  constructor(key: Buffer) {
    if (nodeRc4) {
      this.#node = createCipheriv('rc4', key, null);
      return;
    }
    const s = this.#s;
    for (let i = 0; i < 256; i++) s[i] = i;
    for (let i = 0, j = 0; i < 256; i++) {
      j = (j + s[i]! + key[i % key.length]!) & 0xff;
      [s[i], s[j]] = [s[j]!, s[i]!];
    }
  }

  update(data: Buffer): Buffer {
    if (this.#node) return this.#node.update(data);
    const s = this.#s;
    const out = Buffer.alloc(data.length);
    let i = this.#i;
    let j = this.#j;
    for (let n = 0; n < data.length; n++) {
      i = (i + 1) & 0xff;
      j = (j + s[i]!) & 0xff;
      [s[i], s[j]] = [s[j]!, s[i]!];
      out[n] = data[n]! ^ s[(s[i]! + s[j]!) & 0xff]!;
    }
    this.#i = i;
    this.#j = j;
    return out;
  }
}

/** RC4K (6): one message under a fresh key, as the session key is exchanged. */
export const rc4Once = (key: Buffer, data: Buffer) => new Rc4(key).update(data);
