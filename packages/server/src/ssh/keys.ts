import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { rawEd25519PublicKey } from './ed25519-der.js';
import { parseOpenSshPrivateKey } from './openssh-key-format.js';
import { SshReader, SshWriter } from './wire.js';

/** The only key type Postern creates: OpenSSH 8.8+ refuses SHA-1 RSA, and Ed25519 is small and fast. */
export const ED25519 = 'ssh-ed25519';

const ED25519_KEY_LENGTH = 32;

export interface ParsedPublicKey {
  type: string;
  /** The key in SSH wire format (what fingerprints hash and certificates embed). */
  blob: Buffer;
  comment: string;
}

/** A fresh Ed25519 key: the private half as PKCS#8 PEM, the public half as an OpenSSH line. */
export function generateEd25519Key(): { privateKeyPem: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  // Every session's key is used right away (certificate, then sign-in): no need to parse it back.
  remember(privateKeyPem, privateKey);
  return {
    privateKeyPem,
    publicKey: formatPublicKey(ED25519, ed25519BlobFromKeyObject(publicKey)),
  };
}

/**
 * Parses `type base64 [comment]` as found in authorized_keys, .pub files and certificates.
 * Checks that the blob decodes and names the same type as the line, so a mangled paste fails here
 * rather than later as a confusing signature error.
 */
export function parsePublicKey(line: string): ParsedPublicKey {
  const [type, encoded, ...commentWords] = String(line).trim().split(/\s+/);
  if (!type || !encoded)
    throw new Error('invalid public key: expected "<type> <base64> [comment]"');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new Error(`invalid public key: the ${type} key is not base64`);
  }
  const blob = Buffer.from(encoded, 'base64');
  let innerType: string;
  try {
    innerType = new SshReader(blob, 'public key').text();
  } catch {
    throw new Error(`invalid public key: the ${type} key data is truncated`);
  }
  if (innerType !== type) {
    throw new Error(`invalid public key: the line says ${type} but the key data is ${innerType}`);
  }
  if (type === ED25519) rawEd25519FromBlob(blob);
  return { type, blob, comment: commentWords.join(' ') };
}

/** The OpenSSH public line of a private key given as PKCS#8 PEM or an OpenSSH private key. */
export function publicKeyFromPrivatePem(pem: string): string {
  const publicKey = createPublicKey(ed25519PrivateKeyObject(pem));
  return formatPublicKey(ED25519, ed25519BlobFromKeyObject(publicKey));
}

/** `SHA256:<base64, no padding>` of the key blob, exactly as `ssh-keygen -l` prints it. */
export function fingerprint(keyBlobOrLine: Buffer | string): string {
  const blob =
    typeof keyBlobOrLine === 'string' ? parsePublicKey(keyBlobOrLine).blob : keyBlobOrLine;
  const digest = createHash('sha256').update(blob).digest('base64');
  return `SHA256:${digest.replace(/=+$/, '')}`;
}

export function formatPublicKey(type: string, blob: Buffer, comment = ''): string {
  return `${type} ${blob.toString('base64')}${comment ? ` ${comment}` : ''}`;
}

/** `string "ssh-ed25519" string key` around a raw 32-byte public key. */
export function ed25519BlobFromRaw(raw: Buffer): Buffer {
  if (raw.length !== ED25519_KEY_LENGTH) throw new Error('an Ed25519 public key is 32 bytes');
  return new SshWriter().string(ED25519).string(raw).toBuffer();
}

/** The raw 32-byte key inside an `ssh-ed25519` blob; throws on any other shape. */
export function rawEd25519FromBlob(blob: Buffer): Buffer {
  const reader = new SshReader(blob, 'Ed25519 public key');
  const type = reader.text();
  if (type !== ED25519) throw new Error(`expected an ${ED25519} key, got ${type}`);
  const raw = reader.string();
  reader.end();
  if (raw.length !== ED25519_KEY_LENGTH)
    throw new Error('malformed Ed25519 public key: not 32 bytes');
  return raw;
}

/** A node:crypto public key for an `ssh-ed25519` blob, to verify signatures with. */
export function ed25519PublicKeyObject(blob: Buffer): KeyObject {
  const x = rawEd25519FromBlob(blob).toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

export function ed25519BlobFromKeyObject(key: KeyObject): Buffer {
  return ed25519BlobFromRaw(rawEd25519PublicKey(key));
}

/**
 * A node:crypto private key from PKCS#8 PEM (what we generate) or an unencrypted OpenSSH private
 * key (what ssh-keygen writes), so operators may hand us either.
 */
export function ed25519PrivateKeyObject(pem: string): KeyObject {
  const known = parsedKeys.get(pem);
  if (known) {
    remember(pem, known); // most recently used last, so the CA key is never the oldest
    return known;
  }
  let key: KeyObject;
  try {
    key = pem.includes('OPENSSH PRIVATE KEY')
      ? parseOpenSshPrivateKey(pem)
      : createPrivateKey({ key: pem, format: 'pem' });
  } catch (error) {
    throw new Error(`invalid private key: ${(error as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`invalid private key: expected Ed25519, got ${key.asymmetricKeyType}`);
  }
  remember(pem, key);
  return key;
}

/**
 * Keys parsed lately, by their PEM. Parsing a PEM costs OpenSSL half a millisecond, and opening a
 * session parsed the CA's key and the session's own key five times in all: with many sessions
 * opening at once that was the proxy's largest cost, in everyone's keystroke latency. The CA key
 * stays here; a session's key drops out after a few hundred others.
 */
const parsedKeys = new Map<string, KeyObject>();
const parsedKeysLimit = 256;

function remember(pem: string, key: KeyObject): void {
  parsedKeys.delete(pem);
  parsedKeys.set(pem, key);
  if (parsedKeys.size > parsedKeysLimit) {
    const oldest = parsedKeys.keys().next().value;
    if (oldest !== undefined) parsedKeys.delete(oldest);
  }
}
