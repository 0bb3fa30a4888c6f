import { timingSafeEqual } from 'node:crypto';
import { hmacMd5, md5, Rc4 } from './ntlm-crypto.js';
import { ntlmFlag } from './ntlm.js';
import { RdpProtocolError } from './rdp-wire.js';

type Direction = 'client-to-server' | 'server-to-client';

/** SIGNKEY and SEALKEY (3.4.5.2, 3.4.5.3) with extended session security and 128-bit keys. */
const subKey = (sessionKey: Buffer, direction: Direction, use: 'signing' | 'sealing') =>
  md5(sessionKey, Buffer.from(`session key to ${direction} ${use} key magic constant\0`, 'latin1'));

interface Keys {
  sign: Buffer;
  seal: Rc4;
  sequence: number;
}

/**
 * NTLM's message confidentiality and integrity after authentication (3.4: SEAL and MAC with
 * extended session security), as CredSSP uses them: each direction has its own signing key, its
 * own RC4 stream for the whole connection and its own sequence number, so a message can be
 * neither altered, reordered nor replayed. A sealed token is the 16-byte signature followed by
 * the encrypted message (what SSPI's EncryptMessage gives CredSSP).
 */
export class NtlmSession {
  readonly #send: Keys;
  readonly #receive: Keys;
  readonly #keyExchange: boolean;

  /** `side`: the client's session by default; tests play the server with the other. */
  constructor(exportedSessionKey: Buffer, flags: number, side: 'client' | 'server' = 'client') {
    const keys = (direction: Direction): Keys => ({
      sign: subKey(exportedSessionKey, direction, 'signing'),
      seal: new Rc4(subKey(exportedSessionKey, direction, 'sealing')),
      sequence: 0,
    });
    const outgoing: Direction = side === 'client' ? 'client-to-server' : 'server-to-client';
    this.#send = keys(outgoing);
    this.#receive = keys(side === 'client' ? 'server-to-client' : 'client-to-server');
    this.#keyExchange = (flags & ntlmFlag.keyExchange) !== 0;
  }

  seal(message: Buffer): Buffer {
    const sealed = this.#send.seal.update(message);
    return Buffer.concat([this.#signature(this.#send, message), sealed]);
  }

  /** The message inside a sealed token; throws if its signature does not check. */
  unseal(token: Buffer): Buffer {
    if (token.length < 16) throw new RdpProtocolError('a sealed NTLM message is cut short');
    const message = this.#receive.seal.update(token.subarray(16));
    const expected = this.#signature(this.#receive, message);
    if (!timingSafeEqual(expected, token.subarray(0, 16))) {
      throw new RdpProtocolError("the desktop's sealed message failed its NTLM signature");
    }
    return message;
  }

  /** NTLMSSP_MESSAGE_SIGNATURE (2.2.2.9.1); the RC4 stream goes on after the sealed message. */
  #signature(keys: Keys, message: Buffer): Buffer {
    const sequence = Buffer.alloc(4);
    sequence.writeUInt32LE(keys.sequence++);
    let checksum: Buffer = hmacMd5(keys.sign, sequence, message).subarray(0, 8);
    if (this.#keyExchange) checksum = keys.seal.update(checksum);
    return Buffer.concat([Buffer.from([1, 0, 0, 0]), checksum, sequence]);
  }
}
