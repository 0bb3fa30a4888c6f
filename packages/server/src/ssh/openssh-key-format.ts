import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import { ed25519Seed, rawEd25519PublicKey } from './ed25519-der.js';
import { SshReader, SshWriter } from './wire.js';

/**
 * OpenSSH's own private key file format (PROTOCOL.key in the OpenSSH sources), unencrypted and
 * Ed25519 only. We need it because ssh2 parses Ed25519 private keys only in this format (not
 * PKCS#8), for its server host keys, and because `ssh -i` in tests reads it everywhere.
 */

const MAGIC = Buffer.from('openssh-key-v1\0', 'latin1');
const BEGIN = '-----BEGIN OPENSSH PRIVATE KEY-----';
const END = '-----END OPENSSH PRIVATE KEY-----';
/** With cipher "none" the private section is padded to this block size. */
const BLOCK_SIZE = 8;

/** Writes an Ed25519 node:crypto private key in the openssh-key-v1 format. */
export function toOpenSshPrivateKey(key: KeyObject, comment = ''): string {
  if (key.type !== 'private') throw new Error('not an Ed25519 private key');
  // From DER, never a JWK export (ed25519-der.ts says why).
  const seed = ed25519Seed(key);
  const publicRaw = rawEd25519PublicKey(key);
  const publicBlob = new SshWriter().string('ssh-ed25519').string(publicRaw).toBuffer();

  // The two equal check integers let a reader detect a wrong passphrase; unencrypted, they just match.
  const check = randomBytes(4).readUInt32BE();
  const secret = new SshWriter()
    .uint32(check)
    .uint32(check)
    .string('ssh-ed25519')
    .string(publicRaw)
    // OpenSSH stores the 64-byte "secret key" of the reference implementation: seed, then public key.
    .string(Buffer.concat([seed, publicRaw]))
    .string(comment);
  const unpadded = secret.toBuffer().length;
  for (let pad = 1; (unpadded + pad - 1) % BLOCK_SIZE !== 0; pad++) secret.byte(pad);

  const body = new SshWriter()
    .raw(MAGIC)
    .string('none')
    .string('none')
    .string('')
    .uint32(1)
    .string(publicBlob)
    .string(secret.toBuffer())
    .toBuffer()
    .toString('base64');
  const lines = body.match(/.{1,70}/g) ?? [];
  return `${BEGIN}\n${lines.join('\n')}\n${END}\n`;
}

/** Reads an unencrypted openssh-key-v1 Ed25519 key into a node:crypto private key. */
export function parseOpenSshPrivateKey(text: string): KeyObject {
  const start = text.indexOf(BEGIN);
  const stop = text.indexOf(END);
  if (start < 0 || stop < start) throw new Error('not an OpenSSH private key');
  const bytes = Buffer.from(text.slice(start + BEGIN.length, stop).replace(/\s+/g, ''), 'base64');
  if (!bytes.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error('not an OpenSSH private key');

  const outer = new SshReader(bytes.subarray(MAGIC.length), 'OpenSSH private key');
  const cipher = outer.text();
  outer.text(); // kdf name: "none" whenever the cipher is
  outer.string(); // kdf options
  if (cipher !== 'none') throw new Error('encrypted OpenSSH private keys are not supported');
  if (outer.uint32() !== 1) throw new Error('expected exactly one key in the file');
  outer.string(); // public key, repeated in the private section
  const secret = new SshReader(outer.string(), 'OpenSSH private key');
  if (secret.uint32() !== secret.uint32()) throw new Error('corrupt OpenSSH private key');
  const type = secret.text();
  if (type !== 'ssh-ed25519') throw new Error(`unsupported key type ${type}`);
  const publicRaw = secret.string();
  const secretKey = secret.string();
  if (publicRaw.length !== 32 || secretKey.length !== 64) throw new Error('malformed Ed25519 key');

  return createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: secretKey.subarray(0, 32).toString('base64url'),
      x: publicRaw.toString('base64url'),
    },
    format: 'jwk',
  });
}
