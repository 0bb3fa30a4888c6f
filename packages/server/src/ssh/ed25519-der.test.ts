import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ed25519Seed, rawEd25519PublicKey } from './ed25519-der.js';

// RFC 8032, section 7.1, TEST 1: the seed and the public key it makes.
const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
const publicRaw = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';

describe('Ed25519 keys read from DER', () => {
  it('give the raw seed and public key of RFC 8032’s first test vector', () => {
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    expect(ed25519Seed(privateKey).toString('hex')).toBe(seed.toString('hex'));
    expect(rawEd25519PublicKey(privateKey).toString('hex')).toBe(publicRaw);
    expect(rawEd25519PublicKey(createPublicKey(privateKey)).toString('hex')).toBe(publicRaw);
  });

  it('take a freshly generated key, and refuse any other kind', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    expect(rawEd25519PublicKey(privateKey)).toEqual(rawEd25519PublicKey(publicKey));
    expect(ed25519Seed(privateKey)).toHaveLength(32);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => rawEd25519PublicKey(ec.publicKey)).toThrow(/not an Ed25519 key/);
  });
});
