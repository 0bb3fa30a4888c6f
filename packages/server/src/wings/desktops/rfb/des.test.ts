import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { desEncryptBlock } from './des.js';
import { vncAuthResponse } from './vnc-auth.js';

const hex = (text: string) => Buffer.from(text, 'hex');

/** Triple DES with its three keys equal is single DES: OpenSSL 3 still has that by default. */
function opensslDes(key: Buffer, block: Buffer): Buffer {
  const cipher = createCipheriv('des-ede-ecb', Buffer.concat([key, key]), null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(block), cipher.final()]);
}

describe('DES', () => {
  it('encrypts the classic test vector ("Now is t" under 0123456789abcdef)', () => {
    expect(desEncryptBlock(hex('0123456789abcdef'), Buffer.from('Now is t')).toString('hex')).toBe(
      '3fa40e8a984d4815',
    );
  });

  it('encrypts the FIPS 81 / NBS validation vectors', () => {
    // Key 133457799BBCDFF1, the textbook worked example.
    expect(desEncryptBlock(hex('133457799bbcdff1'), hex('0123456789abcdef')).toString('hex')).toBe(
      '85e813540f0ab405',
    );
    // All-zero key and block.
    expect(desEncryptBlock(Buffer.alloc(8), Buffer.alloc(8)).toString('hex')).toBe(
      '8ca64de9c1b123a7',
    );
  });

  it('agrees with OpenSSL on random keys and blocks', () => {
    for (let i = 0; i < 200; i++) {
      const key = randomBytes(8);
      const block = randomBytes(8);
      expect(desEncryptBlock(key, block)).toEqual(opensslDes(key, block));
    }
  });
});

describe('VNC Authentication', () => {
  it('encrypts the challenge with the bit-reversed password as key, two blocks', () => {
    const challenge = randomBytes(16);
    // "secret12": each byte's bits reversed by hand.
    const key = Buffer.from([0xce, 0xa6, 0xc6, 0x4e, 0xa6, 0x2e, 0x8c, 0x4c]);
    expect(vncAuthResponse('secret12', challenge)).toEqual(
      Buffer.concat([
        opensslDes(key, challenge.subarray(0, 8)),
        opensslDes(key, challenge.subarray(8)),
      ]),
    );
  });

  it('pads short passwords with zeros and cuts long ones at 8 bytes', () => {
    const challenge = randomBytes(16);
    expect(vncAuthResponse('pw', challenge)).toEqual(vncAuthResponse('pw\0\0\0\0\0\0', challenge));
    expect(vncAuthResponse('12345678-and-more', challenge)).toEqual(
      vncAuthResponse('12345678', challenge),
    );
  });
});
