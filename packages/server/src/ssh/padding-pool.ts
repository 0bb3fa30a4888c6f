import { randomFillSync } from 'node:crypto';
import { createRequire } from 'node:module';

/**
 * Random bytes taken from the CSPRNG in blocks and handed out once each, for callers that need
 * a few random bytes very often (SSH packet padding, below). The bytes are the same
 * `crypto.randomFillSync` output a caller would get by asking for them one by one, only fetched
 * 64 KiB at a time: no byte is handed out twice, and a request larger than the pool goes to the
 * CSPRNG directly. OpenSSH does the same for its padding (arc4random_buf serves a buffered
 * keystream).
 */
export class RandomPool {
  private readonly pool: Buffer;
  /** The first byte not yet handed out; the pool is refilled when a request does not fit. */
  private at: number;

  constructor(
    private readonly size = 64 * 1024,
    private readonly source: (target: Buffer) => void = (target) => randomFillSync(target),
  ) {
    this.pool = Buffer.allocUnsafe(size);
    this.at = size;
  }

  /** Writes `length` fresh random bytes into `target` from `offset` on. */
  fill(target: Buffer, offset: number, length: number): void {
    if (length > this.size) return this.source(target.subarray(offset, offset + length));
    if (this.at + length > this.size) {
      this.source(this.pool);
      this.at = 0;
    }
    // A loop: SSH padding is a few bytes (4 to 19 with AES-GCM), too few for a native copy.
    const { pool } = this;
    for (let i = 0; i < length; i++) target[offset + i] = pool[this.at + i]!;
    this.at += length;
  }
}

/**
 * ssh2 1.17.0's allocPacket of AES-GCM (its native binding, AESGCMCipherBinding), which
 * `poolPacketPadding` replaces: only this exact text is replaced, any other version is left as
 * it is. The replacement differs in the last step only, where the padding comes from.
 */
const ssh2AesGcmAllocPacket = `allocPacket(payloadLen) {
    let pktLen = 4 + 1 + payloadLen;
    let padLen = 16 - ((pktLen - 4) & (16 - 1));
    if (padLen < 4)
      padLen += 16;
    pktLen += padLen;

    const packet = Buffer.allocUnsafe(pktLen + 16/* authTag */);

    writeUInt32BE(packet, pktLen - 4, 0);
    packet[4] = padLen;

    randomFillSync(packet, 5 + payloadLen, padLen);

    return packet;
  }`;

/** ssh2's own method while ours is in, to put back (tests that install a pool of their own). */
let replaced: CipherPrototype['allocPacket'] | undefined;
let pooled = false;

/**
 * Makes ssh2 take the random padding of each AES-GCM packet it sends from a RandomPool instead
 * of calling `crypto.randomFillSync` for 4 to 19 bytes per packet. That call costs far more
 * than its bytes (a job object, OpenSSL's DRBG locking and reseed checks, per call): about 5% of
 * the proxy's CPU when it relays a copy, where every packet is encrypted twice (inner and
 * outer connection) and the node leg's once.
 *
 * Safe: RFC 4253 (section 6) asks for "random padding" and says it SHOULD be random bytes; with
 * AES-GCM (RFC 5647) the padding is encrypted and authenticated like the payload, so its bytes
 * protect nothing either way. They stay CSPRNG bytes, each used once. The padding's length, the
 * packet's framing and the encryption are ssh2's own, unchanged.
 *
 * ssh2 has no hook for this: the method is replaced on the class's prototype, for every
 * connection of the process, and only when ssh2 is 1.17.0 and the method is exactly the one
 * above (the test checks both, so an upgrade of ssh2 fails it until this is looked at again).
 * Returns whether the pool is in use.
 */
export function poolPacketPadding(pool = new RandomPool()): boolean {
  if (pooled) return true;
  const require = createRequire(import.meta.url);
  const { version } = require('ssh2/package.json') as { version: string };
  const prototype = aesGcmCipherPrototype(require);
  if (version !== '1.17.0' || prototype?.allocPacket?.toString() !== ssh2AesGcmAllocPacket) {
    return false;
  }
  replaced = prototype.allocPacket;
  prototype.allocPacket = function allocPacket(payloadLen: number): Buffer {
    let pktLen = 4 + 1 + payloadLen;
    let padLen = 16 - ((pktLen - 4) & (16 - 1));
    if (padLen < 4) padLen += 16;
    pktLen += padLen;
    const packet = Buffer.allocUnsafe(pktLen + 16 /* the GCM tag, written by encrypt */);
    packet.writeUInt32BE(pktLen - 4, 0);
    packet[4] = padLen;
    pool.fill(packet, 5 + payloadLen, padLen);
    return packet;
  };
  pooled = true;
  return true;
}

/**
 * Puts ssh2's own method back. For tests: the pool is process-wide, so a test of its framing
 * starts from ssh2's method whatever ran before it in the same worker.
 */
export function unpoolPacketPadding(): void {
  if (!pooled) return;
  const prototype = aesGcmCipherPrototype(createRequire(import.meta.url));
  if (prototype && replaced) prototype.allocPacket = replaced;
  pooled = false;
}

interface CipherPrototype {
  allocPacket?: (payloadLen: number) => Buffer;
}

/** The prototype of the class ssh2 encrypts AES-GCM packets with, from a throwaway instance. */
function aesGcmCipherPrototype(require: NodeJS.Require): CipherPrototype | undefined {
  const crypto = require('ssh2/lib/protocol/crypto.js') as {
    CIPHER_INFO?: Record<string, unknown>;
    createCipher?: (config: object) => { free(): void };
  };
  const cipherInfo = crypto.CIPHER_INFO?.['aes128-gcm@openssh.com'];
  if (!cipherInfo || typeof crypto.createCipher !== 'function') return undefined;
  const cipher = crypto.createCipher({
    outbound: {
      onWrite: () => undefined,
      cipherInfo,
      cipherKey: Buffer.alloc(16),
      cipherIV: Buffer.alloc(12),
      seqno: 0,
    },
  });
  cipher.free();
  return Object.getPrototypeOf(cipher) as CipherPrototype;
}
